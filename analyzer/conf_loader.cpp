#include "analyzer/conf_loader.h"

#include <fmt/format.h>
#include <filesystem>

#include "analyzer/include_files.h"
#include "analyzer/text_util.h"

namespace sa {

namespace fs = std::filesystem;

namespace {

// Recursion is bounded by limits.include_depth (checked before every nested expand).
class IncludeExpander {
 public:
  IncludeExpander(SourceManager& sources, DiagnosticSink& sink, const LoadOptions& options, FileId root)
      : sources_(sources),
        sink_(sink),
        options_(options),
        root_dir_(fs::path(sources.path(root)).parent_path()),
        files_(options.includes, sources.path(root), sources) {}

  int unreadable = 0;

  void expand(FileId file, int depth, std::vector<ConfLine>& out) {
    stack_.push_back(files_.mapped(sources_.path(file)).string());
    for (ConfLine& line : read_conf(sources_, file, sink_)) {
      if (stopped_) break;
      if (!line.is_include) {
        remember_cluster_name(line);
        out.push_back(std::move(line));
        if (static_cast<std::int64_t>(out.size()) > options_.limits.conf_lines) stop_at_line_cap(out);
        continue;
      }
      include(line, file, depth, out);
    }
    stack_.pop_back();
  }

 private:
  void stop_at_line_cap(std::vector<ConfLine>& out) {
    stopped_ = true;
    sink_.error("CONF049", out.back().loc,
                fmt::format("the config has more than {} lines with its Includes; the rest is not read",
                            options_.limits.conf_lines),
                "raise the limit with --limit conf-lines=N");
    out.pop_back();
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

  // The file an Include names, as Slurm resolves it (before --include-map and confinement).
  fs::path target_of(const std::string& name, FileId parent) const {
    fs::path target(name);
    if (target.is_relative()) {
      // Slurm 23.02 changed the base of relative includes from the including file's directory
      // to slurm.conf's directory.
      fs::path base = options_.version.at_least(23, 2) ? root_dir_ : fs::path(sources_.path(parent)).parent_path();
      target = base / target;
    }
    return target;
  }

  // Whether this Include may be opened at all: no cycle, not too deep, not too many.
  bool within_limits(const std::string& name, const std::string& key, SourceLoc at, int depth) {
    for (const std::string& open : stack_) {
      if (open == key) {
        sink_.error("CONF011", at,
                    fmt::format("Include '{}' includes itself (directly or through "
                                "other files); Slurm would recurse until it crashes",
                                printable(name)),
                    "remove the Include that leads back to a file already being read");
        return false;
      }
    }
    if (depth + 1 > options_.limits.include_depth) {
      sink_.error(
          "CONF011", at,
          fmt::format("Include nesting deeper than {} levels at '{}'", options_.limits.include_depth, printable(name)),
          "raise the limit with --limit include-depth=N");
      return false;
    }
    if (++opened_ > options_.limits.include_files) {
      stopped_ = true;
      sink_.error("CONF049", at,
                  fmt::format("more than {} Include files; '{}' and the rest are not read",
                              options_.limits.include_files, printable(name)),
                  "raise the limit with --limit include-files=N");
      return false;
    }
    return true;
  }

  void report_unopened(const std::string& name, const fs::path& target, const IncludeOpen& opened, SourceLoc at) {
    ++unreadable;
    if (opened.kind == ErrorKind::kRefused) {
      sink_.error("CONF048", at,
                  fmt::format("Include '{}' refused: {}; nothing of it is read", printable(name), opened.error),
                  fmt::format("include roots: {}; add one with --include-root DIR, map a production path with "
                              "--include-map FROM=DIR, or (on your own controller) --allow-outside-includes",
                              files_.roots_text()));
    } else if (opened.kind == ErrorKind::kTooLarge) {
      sink_.error("CONF049", at, fmt::format("Include '{}' not read: {}", printable(name), opened.error));
    } else {
      sink_.error("CONF011", at,
                  fmt::format("cannot read included file '{}' ({}); Slurm refuses "
                              "to start",
                              printable(name), printable(target.string())),
                  // (--include-map maps absolute paths: a production /etc/slurm to a checkout.)
                  target.is_absolute()
                      ? fmt::format("put the file at {}, or lint with --include-map {}=DIR where DIR holds its copy",
                                    printable(target.string()), printable(target.parent_path().string()))
                      : fmt::format("put the file at {}, where Slurm looks for it", printable(target.string())));
    }
  }

  void include(const ConfLine& line, FileId parent, int depth, std::vector<ConfLine>& out) {
    SourceLoc at = line.include_path_loc.valid() ? line.include_path_loc : line.loc;
    if (line.include_path.empty()) {
      sink_.error("CONF011", line.loc, "Include without a file name", "name the file to include, or remove the line");
      return;
    }
    bool ok = true;
    std::string name = substitute(line, ok);
    if (!ok) return;
    if (name.find('*') != std::string::npos && options_.version.at_least(23, 11)) {
      sink_.error("CONF011", at,
                  fmt::format("Include '{}': Slurm {} does not support globs in Include", printable(name),
                              options_.version.to_string()),
                  "list each file on its own Include line");
      return;
    }
    const fs::path target = target_of(name, parent);
    if (!within_limits(name, files_.mapped(target).string(), at, depth)) return;
    IncludeOpen opened = files_.open(target);
    if (opened.file == kNoFile) return report_unopened(name, target, opened, at);
    expand(opened.file, depth + 1, out);
  }

  SourceManager& sources_;
  DiagnosticSink& sink_;
  const LoadOptions& options_;
  fs::path root_dir_;
  IncludeFiles files_;
  std::vector<std::string> stack_;
  std::string cluster_name_;
  int opened_ = 0;
  bool stopped_ = false;  // a cap was reached: read nothing more
};

}  // namespace

LoadedConf load_conf_text(FileId root, SourceManager& sources, DiagnosticSink& sink, const LoadOptions& options) {
  LoadedConf conf;
  conf.root = root;
  IncludeExpander expander(sources, sink, options, root);
  expander.expand(root, 0, conf.lines);
  conf.unreadable_includes = expander.unreadable;
  return conf;
}

Result<LoadedConf> load_conf(const std::string& path, SourceManager& sources, DiagnosticSink& sink,
                             const LoadOptions& options) {
  sources.set_limits(options.limits);
  auto root = sources.load(path);
  if (!root) return root.failure();
  return load_conf_text(*root, sources, sink, options);
}

}  // namespace sa
