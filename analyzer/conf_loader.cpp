#include "analyzer/conf_loader.h"

#include <filesystem>
#include <fmt/format.h>

#include "analyzer/text_util.h"

namespace sa {

namespace fs = std::filesystem;

namespace {

class IncludeExpander {
 public:
  IncludeExpander(SourceManager& sources, DiagnosticSink& sink, const LoadOptions& options,
                  FileId root)
      : sources_(sources), sink_(sink), options_(options),
        root_dir_(fs::path(sources.path(root)).parent_path()) {}

  int unreadable = 0;

  void expand(FileId file, int depth, std::vector<ConfLine>& out) {
    stack_.push_back(canonical(sources_.path(file)));
    for (ConfLine& line : read_conf(sources_, file, sink_)) {
      if (!line.is_include) {
        remember_cluster_name(line);
        out.push_back(std::move(line));
        continue;
      }
      include(line, file, depth, out);
    }
    stack_.pop_back();
  }

 private:
  static std::string canonical(const std::string& path) {
    std::error_code ec;
    fs::path p = fs::weakly_canonical(path, ec);
    return ec ? path : p.string();
  }

  void remember_cluster_name(const ConfLine& line) {
    if (!line.pairs.empty() && iequals(line.pairs[0].key, "ClusterName")) {
      cluster_name_ = to_lower(line.pairs[0].value);
    }
  }

  std::string substitute(const ConfLine& line, bool& ok) {
    std::string path;
    ok = true;
    for (std::size_t i = 0; i < line.include_path.size(); ++i) {
      if (line.include_path[i] == '%' && i + 1 < line.include_path.size() && line.include_path[i + 1] == 'c') {
        if (cluster_name_.empty()) {
          sink_.error("CONF011", line.include_path_loc,
                      "'%c' in Include needs ClusterName, which is not set on an earlier line",
                      "move ClusterName above this Include");
          ok = false;
          return {};
        }
        path += cluster_name_;
        ++i;
      } else {
        path.push_back(line.include_path[i]);
      }
    }
    return path;
  }

  void include(const ConfLine& line, FileId parent, int depth, std::vector<ConfLine>& out) {
    SourceLoc at = line.include_path_loc.valid() ? line.include_path_loc : line.loc;
    if (line.include_path.empty()) {
      sink_.error("CONF011", line.loc, "Include without a file name");
      return;
    }
    bool ok = true;
    std::string name = substitute(line, ok);
    if (!ok) return;
    if (name.find('*') != std::string::npos && options_.version.at_least(23, 11)) {
      sink_.error("CONF011", at, fmt::format("Include '{}': Slurm {} does not support globs in Include",
                                             printable(name), options_.version.to_string()),
                  "list each file on its own Include line");
      return;
    }
    fs::path target(name);
    if (target.is_relative()) {
      // Slurm 23.02 changed the base of relative includes from the including file's directory
      // to slurm.conf's directory.
      fs::path base = options_.version.at_least(23, 2) ? root_dir_
                                                      : fs::path(sources_.path(parent)).parent_path();
      target = base / target;
    }
    std::string key = canonical(target.string());
    for (const std::string& open : stack_) {
      if (open == key) {
        sink_.error("CONF011", at, fmt::format("Include '{}' includes itself (directly or through "
                                               "other files); Slurm would recurse until it crashes",
                                               printable(name)));
        return;
      }
    }
    if (depth + 1 > options_.max_include_depth) {
      sink_.error("CONF011", at, fmt::format("Include nesting deeper than {} levels at '{}'",
                                             options_.max_include_depth, printable(name)));
      return;
    }
    auto loaded = sources_.load(target.string());
    if (!loaded) {
      ++unreadable;
      sink_.error("CONF011", at, fmt::format("cannot read included file '{}' ({}); Slurm refuses "
                                             "to start", printable(name), printable(target.string())));
      return;
    }
    expand(*loaded, depth + 1, out);
  }

  SourceManager& sources_;
  DiagnosticSink& sink_;
  const LoadOptions& options_;
  fs::path root_dir_;
  std::vector<std::string> stack_;
  std::string cluster_name_;
};

}  // namespace

LoadedConf load_conf_text(FileId root, SourceManager& sources, DiagnosticSink& sink,
                          const LoadOptions& options) {
  LoadedConf conf;
  conf.root = root;
  IncludeExpander expander(sources, sink, options, root);
  expander.expand(root, 0, conf.lines);
  conf.unreadable_includes = expander.unreadable;
  return conf;
}

Result<LoadedConf> load_conf(const std::string& path, SourceManager& sources, DiagnosticSink& sink,
                             const LoadOptions& options) {
  auto root = sources.load(path);
  if (!root) return Error{root.error()};
  return load_conf_text(*root, sources, sink, options);
}

}  // namespace sa
