#!/usr/bin/env bash
# Installs the Debian packages slurm-advisor builds and tests with, and only those that are
# missing. Idempotent: a second run installs nothing and prints nothing but a summary line.
set -euo pipefail

packages=(
  cmake g++ make pkg-config
  antlr4 libantlr4-runtime-dev default-jre-headless
  libboost-graph-dev libfmt-dev nlohmann-json3-dev libcli11-dev libtomlplusplus-dev
  googletest libgtest-dev libgmock-dev libbenchmark-dev
  ccache
  # Packaging and its tests: dpkg-shlibdeps (dpkg-dev, which needs file) declares the .deb's
  # dependencies, groff checks the man pages, zsh checks the zsh completion's syntax.
  dpkg-dev file groff-base zsh
  # The HTML report tests (tests/browser): zlib decodes the PNG screenshots, and headless
  # Chromium renders the report. Without recommends it still runs headless: fontconfig
  # pulls in a font (DejaVu), which is all the screenshots need.
  zlib1g-dev chromium
  # The style tests (tests/style): the sources against .clang-format and .clang-tidy.
  clang-format clang-tidy
)
# Optional extras: clang for the libFuzzer targets, and time(1) for their CPU-second rates.
if [[ "${SLURM_ADVISOR_EXTRAS:-}" == *fuzz* ]]; then packages+=(clang libclang-rt-14-dev time); fi
# A real Slurm 22.05 for the tests that run one through ../shared/tools/mini-slurm (tune's job
# array end to end). Best effort: where they cannot be installed those tests skip and say why.
slurm_packages=(munge slurmctld slurmd slurm-client slurmdbd mariadb-server mariadb-client)

missing_of() {
  local p
  for p in "$@"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || echo "$p"
  done
}
mapfile -t missing < <(missing_of "${packages[@]}")
mapfile -t slurm_missing < <(missing_of "${slurm_packages[@]}")

if ((${#missing[@]} + ${#slurm_missing[@]} == 0)); then
  echo "install_deps: all $((${#packages[@]} + ${#slurm_packages[@]})) packages present"
  exit 0
fi

sudo_cmd=()
if [[ $(id -u) -ne 0 ]]; then
  if ! command -v sudo >/dev/null; then
    if ((${#missing[@]} == 0)); then
      # Only the optional Slurm group is missing: build and test without it.
      echo "install_deps: all ${#packages[@]} packages present; not root, so ${slurm_missing[*]} stay" \
        "uninstalled and the tests that run a real Slurm skip"
      exit 0
    fi
    echo "install_deps: need root or sudo to install: ${missing[*]}" >&2
    exit 2
  fi
  sudo_cmd=(sudo)
fi
echo "install_deps: installing ${missing[*]} ${slurm_missing[*]}"
export DEBIAN_FRONTEND=noninteractive
# An apt-get update is needed on a fresh image whose package lists are empty or stale; only the
# required packages make its failure fatal.
if ((${#missing[@]})); then
  "${sudo_cmd[@]}" apt-get update -qq
else
  "${sudo_cmd[@]}" apt-get update -qq || true
fi
if ((${#missing[@]})); then
  "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
if ((${#slurm_missing[@]})); then
  # No daemon may start from a package's postinst: mini-slurm starts its own on loopback. A
  # policy-rc.d that refuses every start is put in place for the install only if none exists.
  policy=/usr/sbin/policy-rc.d added_policy=0
  if [[ ! -e $policy ]]; then
    printf '#!/bin/sh\nexit 101\n' | "${sudo_cmd[@]}" tee "$policy" >/dev/null && "${sudo_cmd[@]}" chmod 755 "$policy" &&
      added_policy=1
  fi
  "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${slurm_missing[@]}" ||
    echo "install_deps: could not install ${slurm_missing[*]}; the tests that run a real Slurm will skip" >&2
  if ((added_policy)); then "${sudo_cmd[@]}" rm -f "$policy"; fi
fi
