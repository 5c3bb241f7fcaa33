#include "analyzer/include_files.h"

#include <fmt/format.h>
#include <algorithm>

#include "analyzer/text_util.h"

namespace sa {

namespace fs = std::filesystem;

namespace {

// Absolute and normalised without touching the disk (no symlinks resolved).
fs::path lexical(const fs::path& p) {
  std::error_code ec;
  fs::path abs = p.is_absolute() ? p : fs::absolute(p, ec);
  if (ec) abs = p;
  fs::path normal = abs.lexically_normal();
  if (!normal.empty() && !normal.has_filename()) normal = normal.parent_path();  // "dir/" -> "dir"
  return normal;
}

// Symlinks resolved as far as the path exists; the rest kept lexically. A dangling symlink
// resolves to its target too, so a refusal does not reveal whether an outside file exists.
fs::path resolved(const fs::path& p) {
  std::error_code ec;
  fs::path real = fs::weakly_canonical(p, ec);
  return ec ? lexical(p) : lexical(real);
}

bool under(const fs::path& p, const fs::path& root) {
  auto [r, q] = std::mismatch(root.begin(), root.end(), p.begin(), p.end());
  return r == root.end();
}

}  // namespace

bool add_include_map(const std::string& spec, IncludePolicy& policy) {
  const auto eq = spec.find('=');
  if (eq == std::string::npos || eq == 0 || eq + 1 == spec.size() || spec[0] != '/') return false;
  policy.maps.emplace_back(spec.substr(0, eq), spec.substr(eq + 1));
  return true;
}

IncludeFiles::IncludeFiles(const IncludePolicy& policy, const std::string& root_path, SourceManager& sources)
    : policy_(policy), sources_(sources) {
  const bool memory = policy.memory_tree != nullptr;
  // Each root as written and as its symlinks resolve: the lexical check of an Include sees the
  // path as written (a config reached through a symlinked directory), the second check the
  // path the symlinks lead to. A resolved path never runs through a symlink, so the written
  // form admits nothing the resolved one would refuse.
  auto add_root = [&](const fs::path& dir) {
    roots_.push_back(lexical(dir));
    if (!memory && resolved(dir) != roots_.back()) roots_.push_back(resolved(dir));
  };
  if (policy.roots.empty()) {
    fs::path dir = fs::path(root_path).parent_path();
    add_root(dir.empty() ? fs::path(".") : dir);
  }
  for (const std::string& r : policy.roots) add_root(r);
  // A mapped directory was named by the operator, so reading from it is allowed.
  for (const auto& [from, to] : policy.maps) add_root(to);
}

fs::path IncludeFiles::mapped(const fs::path& target) const {
  fs::path p = lexical(target);  // not const: returned by move when no map applies
  for (const auto& [from, to] : policy_.maps) {
    const fs::path prefix = lexical(from);
    if (!under(p, prefix)) continue;
    return lexical(fs::path(to) / p.lexically_relative(prefix));
  }
  return p;
}

bool IncludeFiles::confined(const fs::path& p) const {
  return std::any_of(roots_.begin(), roots_.end(), [&](const fs::path& r) { return under(p, r); });
}

std::string IncludeFiles::roots_text() const {
  std::string out;
  for (const fs::path& r : roots_) out += (out.empty() ? "'" : ", '") + printable(r.string(), 200) + "'";
  return out;
}

IncludeOpen IncludeFiles::open_memory(const fs::path& p) {
  auto it = policy_.memory_tree->find(p.string());
  if (it == policy_.memory_tree->end()) return {kNoFile, "no such file", ErrorKind::kFailed};
  return {sources_.add(p.string(), it->second), {}, ErrorKind::kFailed};
}

IncludeOpen IncludeFiles::open(const fs::path& target) {
  const fs::path p = mapped(target);
  // Lexically first: `../../outside/x` is refused without a look at the disk.
  if (!policy_.allow_outside && !confined(p)) return {kNoFile, "outside the include roots", ErrorKind::kRefused};
  if (policy_.memory_tree) return open_memory(p);
  const fs::path real = resolved(p);
  if (!policy_.allow_outside && !confined(real)) {
    return {kNoFile, "resolves outside the include roots through a symlink", ErrorKind::kRefused};
  }
  // Shown as written (or as mapped), read from where the symlinks lead.
  const bool was_mapped = p != lexical(target);
  // Checked again on the open descriptor: a directory swapped for a symlink after the check
  // above would otherwise lead the read outside.
  AdmitPath admit;
  if (!policy_.allow_outside) admit = [this](const std::string& at) { return confined(lexical(at)); };
  auto loaded = sources_.load(real.string(), was_mapped ? p.string() : target.string(), admit);
  if (!loaded) return {kNoFile, loaded.error(), loaded.failure().kind};
  return {*loaded, {}, ErrorKind::kFailed};
}

}  // namespace sa
