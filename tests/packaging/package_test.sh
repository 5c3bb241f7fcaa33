#!/usr/bin/env bash
# `make package`'s Debian package, built by cpack from this build tree into a scratch
# directory: what it holds, that its Depends names the package of every library the binary
# links, and that the binary taken out of it runs (--version, check on the example site) with
# no library missing.
set -euo pipefail
build=$1 source=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
status=0
fail() { echo "FAIL: $*"; status=1; }

cpack --config "$build/CPackConfig.cmake" -B "$work/out" >"$work/cpack.log" 2>&1 || { cat "$work/cpack.log"; exit 1; }
debs=("$work"/out/slurm-advisor_*_amd64.deb)
[[ ${#debs[@]} -eq 1 && -f "${debs[0]}" ]] || { echo "FAIL: no single slurm-advisor_*_amd64.deb"; ls "$work/out"; exit 1; }
deb=${debs[0]}
echo "package: $(basename "$deb")"

# The files an admin expects from a package.
contents=$(dpkg-deb -c "$deb" | awk '{print $6}')
for f in ./usr/bin/slurm-advisor ./usr/share/man/man1/slurm-advisor.1 ./usr/share/man/man1/slurm-advisor-lint.1 \
  ./usr/share/man/man1/slurm-advisor-config.1 ./usr/share/bash-completion/completions/slurm-advisor \
  ./usr/share/zsh/vendor-completions/_slurm-advisor ./usr/share/doc/slurm-advisor/README.md \
  ./usr/share/doc/slurm-advisor/ci.md ./usr/share/doc/slurm-advisor/examples/ci/github-actions.yml \
  ./usr/share/doc/slurm-advisor/examples/tiered-university/slurm.conf; do
  grep -qx -- "$f" <<<"$contents" || fail "the package lacks $f"
done

# Depends: the package owning each library the binary needs (dpkg-shlibdeps wrote the line).
depends=$(dpkg-deb -f "$deb" Depends)
echo "Depends: $depends"
depend_names=$(sed 's/ *([^)]*)//g; s/, */\n/g' <<<"$depends")
[[ "$(dpkg-deb -f "$deb" Package)" == slurm-advisor ]] || fail "Package is not slurm-advisor"
[[ "$(dpkg-deb -f "$deb" Architecture)" == amd64 ]] || fail "Architecture is not amd64"
for lib in $(ldd "$build/cli/slurm-advisor" | awk '$2 == "=>" {print $3}'); do
  owner=""
  for candidate in "$lib" "$(readlink -f "$lib")" "/usr$lib" "/usr$(readlink -f "$lib")"; do
    owner=$(dpkg -S "$candidate" 2>/dev/null | head -1 | cut -d: -f1) && [[ -n "$owner" ]] && break
  done
  [[ -n "$owner" ]] || { fail "no Debian package owns $lib"; continue; }
  grep -qxF -- "$owner" <<<"$depend_names" || fail "Depends lacks $owner (for $lib)"
done
for p in libantlr4-runtime4.9 libfmt9 libtomlplusplus3; do
  grep -q "$p" <<<"$depends" || fail "Depends lacks $p"
done

# The packaged binary, taken out and run.
dpkg-deb -x "$deb" "$work/root"
bin="$work/root/usr/bin/slurm-advisor"
missing=$(ldd "$bin" | grep 'not found' || true)
[[ -z "$missing" ]] || fail "libraries missing for the packaged binary: $missing"
version=$("$bin" --version) || fail "--version failed"
echo "$version"
deb_version=$(dpkg-deb -f "$deb" Version)
grep -qx "slurm-advisor ${deb_version%-1}" <<<"$version" || fail "--version does not print the package's version $deb_version"
grep -q "Slurm 20.11 to 25.11" <<<"$version" || fail "--version does not name the Slurm releases"
"$bin" check --no-config "$source/corpora/tiered-university/slurm.conf" >/dev/null || fail "check on the example site"
"$bin" check --no-config "$work/root/usr/share/doc/slurm-advisor/examples/tiered-university/slurm.conf" >/dev/null ||
  fail "check on the packaged example site"
[[ $status -eq 0 ]] && echo "ok: contents, Depends and the packaged binary"
exit $status
