#include "chromium.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <exception>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <sstream>
#include <thread>

#include "analyzer/result.h"

extern char** environ;

namespace sa::browser {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;
using Json = nlohmann::json;

constexpr std::size_t kLogCap = 256 * 1024;  // keep the tail: the interesting part is the end
constexpr auto kCloseGrace = std::chrono::seconds(5);
constexpr long long kMaxPageHeight = 16384;  // a full-page screenshot taller than this is cut

// ---- small helpers -----------------------------------------------------------------------

// Field access that never throws, whatever shape a protocol message has.
const Json& field(const Json& j, const char* key) {
  static const Json kNull;
  if (!j.is_object()) return kNull;
  auto it = j.find(key);
  return it == j.end() ? kNull : *it;
}

std::string text_of(const Json& j) { return j.is_string() ? j.get<std::string>() : std::string(); }

long long number_of(const Json& j) { return j.is_number() ? j.get<long long>() : 0; }

std::string first_line(const std::string& s) { return s.substr(0, s.find('\n')); }

std::string file_url(const fs::path& path) {
  static const char* kHex = "0123456789ABCDEF";
  std::string url = "file://";
  for (unsigned char c : path.string()) {
    if (std::isalnum(c) || std::strchr("/-._~", c)) {
      url += static_cast<char>(c);
    } else {
      url += '%';
      url += kHex[c >> 4];
      url += kHex[c & 15];
    }
  }
  return url;
}

std::optional<std::string> base64_decode(const std::string& in) {
  std::string out;
  unsigned int bits = 0;
  int count = 0;
  for (char c : in) {
    int v = c >= 'A' && c <= 'Z'   ? c - 'A'
            : c >= 'a' && c <= 'z' ? c - 'a' + 26
            : c >= '0' && c <= '9' ? c - '0' + 52
            : c == '+'             ? 62
            : c == '/'             ? 63
                                   : -1;
    if (c == '=') break;
    if (v < 0) return std::nullopt;
    bits = (bits << 6) | static_cast<unsigned int>(v);
    count += 6;
    if (count >= 8) {
      count -= 8;
      out += static_cast<char>((bits >> count) & 0xFF);
    }
  }
  return out;
}

bool is_local_url(const std::string& url) {
  for (const char* scheme : {"file:", "data:", "blob:", "about:"}) {
    if (url.rfind(scheme, 0) == 0) return true;
  }
  return false;
}

// A fresh directory for the profile and the log; removed with everything in it.
class TempDir {
 public:
  TempDir() {
    std::string pattern = (fs::temp_directory_path() / "sa_chromium_XXXXXX").string();
    if (::mkdtemp(pattern.data())) path_ = pattern;
  }
  ~TempDir() {
    std::error_code ec;
    if (!path_.empty()) fs::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const fs::path& path() const { return path_; }

 private:
  fs::path path_;
};

std::string read_tail(const fs::path& path, std::size_t cap) {
  std::ifstream in(path, std::ios::binary);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  return text.size() > cap ? text.substr(text.size() - cap) : text;
}

// ---- the Chromium process -----------------------------------------------------------------

struct Child {
  pid_t pid = -1;
  int fd = -1;  // our end of the DevTools pipe
};

std::vector<std::string> chromium_args(const RenderOptions& options, const fs::path& profile) {
  const std::string size = std::to_string(options.width) + "," + std::to_string(options.height);
  // clang-format off
  return {options.chromium,
          "--headless", "--no-sandbox", "--disable-gpu",
          // Containers give /dev/shm 64 MB, on which Chromium crashes.
          "--disable-dev-shm-usage",
          // Nothing of its own: no updates, sync, extensions, first-run pages or sound.
          "--disable-background-networking", "--disable-component-update", "--disable-sync",
          "--disable-extensions", "--no-first-run", "--disable-default-apps", "--mute-audio",
          // No network, two ways, each enough alone: no name or IP literal resolves (localhost
          // included), and every request goes to a proxy on a closed port (loopback too: by
          // default Chromium sends localhost past the proxy).
          "--host-resolver-rules=MAP * ~NOTFOUND",
          "--proxy-server=127.0.0.1:9", "--proxy-bypass-list=<-loopback>", "--disable-quic",
          // Screenshots as the page would paint: a CSS colour lands in the PNG unchanged.
          "--hide-scrollbars", "--force-color-profile=srgb", "--window-size=" + size,
          "--remote-debugging-pipe", "--enable-logging=stderr", "--v=0",
          "--user-data-dir=" + (profile / "profile").string(),
          "about:blank"};
  // clang-format on
}

// The environment with HOME and TMPDIR pointing into the temp dir, so nothing lands in the real
// home and Chromium's singleton directories (org.chromium.Chromium.*) go with the temp dir.
std::vector<std::string> child_environment(const fs::path& home) {
  std::vector<std::string> env;
  for (char** e = environ; *e; ++e) {
    if (std::strncmp(*e, "HOME=", 5) != 0 && std::strncmp(*e, "TMPDIR=", 7) != 0) env.emplace_back(*e);
  }
  env.push_back("HOME=" + home.string());
  env.push_back("TMPDIR=" + home.string());
  return env;
}

std::vector<char*> c_strings(std::vector<std::string>& strings) {
  std::vector<char*> out;
  for (std::string& s : strings) out.push_back(s.data());
  out.push_back(nullptr);
  return out;
}

// posix_spawn, not a shell: paths go to Chromium as argv entries, whatever they contain.
// Chromium reads DevTools commands from fd 3 and writes replies to fd 4; one socket serves
// both, and being a socket lets us write with MSG_NOSIGNAL instead of risking SIGPIPE.
Result<Child> spawn_chromium(const RenderOptions& options, const fs::path& dir) {
  int sv[2];
  if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0) {
    return Error{std::string("socketpair failed: ") + std::strerror(errno)};
  }
  // Keep the child's end clear of 3 and 4 so the dup2 calls below cannot clobber it.
  int child_fd = ::fcntl(sv[1], F_DUPFD_CLOEXEC, 10);
  ::close(sv[1]);
  std::vector<std::string> args = chromium_args(options, dir);
  std::vector<std::string> env = child_environment(dir);
  std::vector<char*> argv = c_strings(args);
  std::vector<char*> envp = c_strings(env);
  std::string log_path = (dir / "chromium.log").string();

  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&actions, 1, log_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
  posix_spawn_file_actions_adddup2(&actions, 1, 2);
  posix_spawn_file_actions_adddup2(&actions, child_fd, 3);
  posix_spawn_file_actions_adddup2(&actions, child_fd, 4);
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  // Its own process group, so a timeout kills the renderer and GPU processes too.
  posix_spawnattr_setpgroup(&attr, 0);
  sigset_t defaults;
  sigemptyset(&defaults);
  for (int sig : {SIGPIPE, SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGCHLD}) sigaddset(&defaults, sig);
  posix_spawnattr_setsigdefault(&attr, &defaults);
  sigset_t no_mask;
  sigemptyset(&no_mask);
  posix_spawnattr_setsigmask(&attr, &no_mask);
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK);
  pid_t pid = -1;
  int rc = ::posix_spawn(&pid, argv[0], &actions, &attr, argv.data(), envp.data());
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attr);
  ::close(child_fd);
  if (rc != 0) {
    ::close(sv[0]);
    return Error{"cannot start '" + options.chromium + "': " + std::strerror(rc)};
  }
  return Child{pid, sv[0]};
}

// Waits for Chromium to exit until `until`, then kills its process group. Returns the exit
// status (128+signal when killed). The group is killed in any case: a helper process that
// outlived the browser would keep files open in the profile we are about to delete.
int reap(pid_t pid, Clock::time_point until) {
  int status = 0;
  pid_t done = 0;
  while ((done = ::waitpid(pid, &status, WNOHANG)) == 0 && Clock::now() < until) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  if (done == 0) {
    ::kill(-pid, SIGKILL);
    done = ::waitpid(pid, &status, 0);
  }
  ::kill(-pid, SIGKILL);
  if (done != pid) return -1;
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

// ---- the DevTools protocol over the pipe --------------------------------------------------

// Messages are JSON texts, each terminated by a NUL byte, in both directions.
class Devtools {
 public:
  explicit Devtools(int fd) : fd_(fd) {}
  ~Devtools() { ::close(fd_); }
  Devtools(const Devtools&) = delete;
  Devtools& operator=(const Devtools&) = delete;

  // Sends a command (to the page session when `session` is set) and returns its id.
  int send(const std::string& method, const Json& params, const std::string& session) {
    Json message = {{"id", ++next_id_}, {"method", method}, {"params", params}};
    if (!session.empty()) message["sessionId"] = session;
    std::string text = message.dump() + '\0';
    for (std::size_t sent = 0; sent < text.size();) {
      ssize_t n = ::send(fd_, text.data() + sent, text.size() - sent, MSG_NOSIGNAL);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) {
        closed_ = true;
        break;
      }
      sent += static_cast<std::size_t>(n);
    }
    return next_id_;
  }

  // The next message, or nothing when `until` passed or Chromium closed the pipe (closed()).
  std::optional<Json> next(Clock::time_point until) {
    std::size_t end;
    while ((end = buffer_.find('\0', scanned_)) == std::string::npos) {
      scanned_ = buffer_.size();
      if (closed_ || !fill(until)) return std::nullopt;
    }
    Json message = Json::parse(buffer_.begin(), buffer_.begin() + static_cast<long>(end), nullptr, false);
    buffer_.erase(0, end + 1);
    scanned_ = 0;
    return message;
  }

  bool closed() const { return closed_; }

 private:
  bool fill(Clock::time_point until) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(until - Clock::now()).count();
    if (left <= 0) return false;
    pollfd p{fd_, POLLIN, 0};
    int ready = ::poll(&p, 1, static_cast<int>(left));
    if (ready < 0 && errno == EINTR) return true;
    if (ready <= 0) return false;
    char chunk[65536];
    ssize_t n = ::read(fd_, chunk, sizeof chunk);
    if (n < 0 && errno == EINTR) return true;
    if (n <= 0) {
      closed_ = true;
      return false;
    }
    buffer_.append(chunk, static_cast<std::size_t>(n));
    return true;
  }

  int fd_;
  int next_id_ = 0;
  bool closed_ = false;
  std::string buffer_;
  std::size_t scanned_ = 0;  // bytes of buffer_ known to hold no NUL
};

// ---- one page: commands, and the events that fill the result ------------------------------

std::string remote_object_text(const Json& object) {
  const Json& value = field(object, "value");
  if (value.is_string()) return value.get<std::string>();
  if (!value.is_null()) return value.dump();
  std::string description = text_of(field(object, "description"));
  return description.empty() ? text_of(field(object, "type")) : description;
}

std::string location_text(const std::string& url, const Json& line, const Json& column) {
  if (url.empty()) return "";
  return " (" + url + ":" + std::to_string(number_of(line) + 1) + ":" + std::to_string(number_of(column) + 1) + ")";
}

class PageSession {
 public:
  PageSession(Devtools& devtools, Clock::time_point deadline, RenderResult& result)
      : devtools_(devtools), deadline_(deadline), result_(result) {}

  // Runs a command and returns its "result", handling the events that arrive meanwhile.
  Result<Json> call(const std::string& method, const Json& params = Json::object(), bool browser = false) {
    int id = devtools_.send(method, params, browser ? std::string() : session_);
    while (true) {
      std::optional<Json> message = devtools_.next(deadline_);
      if (!message) return Error{why_stopped(method)};
      if (number_of(field(*message, "id")) != id) {
        on_event(*message);
        continue;
      }
      const Json& error = field(*message, "error");
      if (!error.is_null()) return Error{method + " failed: " + text_of(field(error, "message"))};
      return field(*message, "result");
    }
  }

  // Handles events until `done()` holds (true) or `until` passes (false); an error when the
  // run's deadline passes first or Chromium goes away.
  template <typename Done>
  Result<bool> wait_for(const Done& done, const std::string& what, Clock::time_point until) {
    while (!done()) {
      std::optional<Json> message = devtools_.next(std::min(until, deadline_));
      if (message) {
        on_event(*message);
      } else if (devtools_.closed() || Clock::now() >= deadline_) {
        return Error{why_stopped(what)};
      } else if (Clock::now() >= until) {
        return false;
      }
    }
    return true;
  }

  void set_session(std::string session) { session_ = std::move(session); }
  bool loaded() const { return loaded_; }
  bool crashed() const { return crashed_; }
  bool network_idle() const { return in_flight_.empty(); }
  Clock::time_point last_network_event() const { return last_network_event_; }

 private:
  std::string why_stopped(const std::string& what) {
    if (crashed_) return "the page crashed while waiting for " + what;
    if (devtools_.closed()) return "chromium exited while waiting for " + what;
    result_.timed_out = true;
    return "timed out waiting for " + what;
  }

  void on_event(const Json& message) {
    const std::string method = text_of(field(message, "method"));
    const Json& params = field(message, "params");
    if (method == "Runtime.consoleAPICalled") return on_console(params);
    if (method == "Runtime.exceptionThrown") return on_exception(field(params, "exceptionDetails"));
    if (method == "Log.entryAdded") return on_log(field(params, "entry"));
    if (method == "Page.loadEventFired") loaded_ = true;
    if (method == "Inspector.targetCrashed") crashed_ = true;
    if (method.rfind("Network.", 0) == 0) on_network(method, params);
  }

  void on_console(const Json& params) {
    std::string type = text_of(field(params, "type"));
    std::string text;
    const Json& args = field(params, "args");
    for (std::size_t i = 0; args.is_array() && i < args.size(); ++i) {
      text += (i ? " " : "") + remote_object_text(args[i]);
    }
    result_.console_messages.push_back(type + ": " + text);
    if (type != "error" && type != "assert") return;
    const Json& frames = field(field(params, "stackTrace"), "callFrames");
    const Json& top = frames.is_array() && !frames.empty() ? frames[0] : Json();
    result_.console_errors.push_back(
        "console." + type + ": " + text +
        location_text(text_of(field(top, "url")), field(top, "lineNumber"), field(top, "columnNumber")));
  }

  void on_exception(const Json& details) {
    std::string text = remote_object_text(field(details, "exception"));
    if (text.empty() || text == "undefined") text = text_of(field(details, "text"));
    result_.console_errors.push_back(
        "uncaught exception: " + first_line(text) +
        location_text(text_of(field(details, "url")), field(details, "lineNumber"), field(details, "columnNumber")));
  }

  void on_log(const Json& entry) {
    if (text_of(field(entry, "level")) != "error") return;
    std::string url = text_of(field(entry, "url"));
    result_.console_errors.push_back("log " + text_of(field(entry, "source")) + ": " + text_of(field(entry, "text")) +
                                     (url.empty() ? "" : " (" + url + ")"));
  }

  void on_network(const std::string& method, const Json& params) {
    last_network_event_ = Clock::now();
    std::string id = text_of(field(params, "requestId"));
    if (method == "Network.requestWillBeSent") {
      std::string url = text_of(field(field(params, "request"), "url"));
      // A redirect fires this again with the same id: list the new URL, track the id once.
      if (!is_local_url(url)) result_.network_requests.push_back(url);
      in_flight_.insert(id);
    } else if (method == "Network.loadingFinished" || method == "Network.loadingFailed") {
      in_flight_.erase(id);
    } else if (method == "Network.webSocketCreated") {
      result_.network_requests.push_back(text_of(field(params, "url")));
    }
  }

  Devtools& devtools_;
  Clock::time_point deadline_;
  RenderResult& result_;
  std::string session_;
  bool loaded_ = false;
  bool crashed_ = false;
  std::set<std::string> in_flight_;
  Clock::time_point last_network_event_ = Clock::now();
};

// ---- the render itself ---------------------------------------------------------------------

constexpr const char* kTwoFrames = "new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))";
constexpr const char* kSerializeDom =
    "(document.doctype ? new XMLSerializer().serializeToString(document.doctype) + '\\n' : '')"
    " + document.documentElement.outerHTML";

Result<bool> set_viewport(PageSession& page, long long width, long long height) {
  auto metrics = page.call("Emulation.setDeviceMetricsOverride",
                           {{"width", width}, {"height", height}, {"deviceScaleFactor", 1}, {"mobile", false}});
  if (!metrics) return Error{metrics.error()};
  return true;
}

// Opens a fresh page with the viewport size, all event domains on, before navigating, so no
// early console message or request is missed.
Result<bool> open_page(PageSession& page, const RenderOptions& options) {
  auto target = page.call("Target.createTarget", {{"url", "about:blank"}}, true);
  if (!target) return Error{target.error()};
  auto attached =
      page.call("Target.attachToTarget", {{"targetId", field(*target, "targetId")}, {"flatten", true}}, true);
  if (!attached) return Error{attached.error()};
  page.set_session(text_of(field(*attached, "sessionId")));
  for (const char* domain : {"Runtime.enable", "Log.enable", "Network.enable", "Page.enable"}) {
    auto enabled = page.call(domain);
    if (!enabled) return Error{enabled.error()};
  }
  if (!options.media.empty()) {
    auto media = page.call("Emulation.setEmulatedMedia", {{"media", options.media}});
    if (!media) return Error{media.error()};
  }
  return set_viewport(page, options.width, options.height);
}

// The caller's expressions, after the page settled; a throw is a value, not a failed run.
Result<bool> run_scripts(PageSession& page, const RenderOptions& options, RenderResult& result) {
  for (const std::string& script : options.scripts) {
    auto value =
        page.call("Runtime.evaluate", {{"expression", script}, {"returnByValue", true}, {"awaitPromise", true}});
    if (!value) return Error{value.error()};
    const Json& details = field(*value, "exceptionDetails");
    if (details.is_object()) {
      result.values.push_back("exception: " + text_of(field(field(details, "exception"), "description")) +
                              text_of(field(details, "text")));
      continue;
    }
    const Json& v = field(field(*value, "result"), "value");
    result.values.push_back(v.is_string() ? v.get<std::string>() : v.dump());
  }
  return true;
}

// Navigates and waits for: the load event, two painted frames, then `settle` with no request
// in flight.
Result<bool> load_page(PageSession& page, const std::string& url, const RenderOptions& options) {
  auto navigated = page.call("Page.navigate", {{"url", url}});
  if (!navigated) return Error{navigated.error()};
  std::string failure = text_of(field(*navigated, "errorText"));
  if (!failure.empty()) return Error{"cannot open " + url + ": " + failure};
  auto loaded =
      page.wait_for([&] { return page.loaded() || page.crashed(); }, "the load event", Clock::time_point::max());
  if (!loaded) return loaded;
  if (page.crashed()) return Error{"the page crashed while loading"};
  auto painted = page.call("Runtime.evaluate", {{"expression", kTwoFrames}, {"awaitPromise", true}});
  if (!painted) return Error{painted.error()};
  Clock::time_point quiet_from = Clock::now();
  const std::string what = "the page to settle (requests still in flight)";
  while (true) {
    Clock::time_point settled_at = std::max(quiet_from, page.last_network_event()) + options.settle;
    bool idle = page.network_idle();
    if (idle && Clock::now() >= settled_at) return true;
    // Idle: sit out the quiet time (a new request restarts it). Busy: wait for idle.
    auto waited = idle ? page.wait_for([] { return false; }, what, settled_at)
                       : page.wait_for([&] { return page.network_idle(); }, what, Clock::time_point::max());
    if (!waited) return waited;
  }
}

// Grows the viewport to the document's height (at most kMaxPageHeight) and lets it repaint,
// so one screenshot holds the whole page.
Result<bool> fit_to_page(PageSession& page, const RenderOptions& options) {
  auto height =
      page.call("Runtime.evaluate", {{"expression", "document.documentElement.scrollHeight"}, {"returnByValue", true}});
  if (!height) return Error{height.error()};
  long long page_height = number_of(field(field(*height, "result"), "value"));
  auto resized = set_viewport(page, options.width, std::clamp<long long>(page_height, options.height, kMaxPageHeight));
  if (!resized) return resized;
  auto painted = page.call("Runtime.evaluate", {{"expression", kTwoFrames}, {"awaitPromise", true}});
  if (!painted) return Error{painted.error()};
  return true;
}

Result<bool> capture(PageSession& page, const RenderOptions& options, RenderResult& result) {
  if (options.dump_dom) {
    auto dom = page.call("Runtime.evaluate", {{"expression", kSerializeDom}, {"returnByValue", true}});
    if (!dom) return Error{dom.error()};
    result.dom = text_of(field(field(*dom, "result"), "value"));
  }
  if (options.screenshot_path.empty()) return true;
  if (options.full_page) {
    auto fitted = fit_to_page(page, options);
    if (!fitted) return fitted;
  }
  auto shot = page.call("Page.captureScreenshot", {{"format", "png"}});
  if (!shot) return Error{shot.error()};
  std::optional<std::string> png = base64_decode(text_of(field(*shot, "data")));
  if (!png || png->empty()) return Error{"Page.captureScreenshot returned no PNG data"};
  std::ofstream out(options.screenshot_path, std::ios::binary | std::ios::trunc);
  out.write(png->data(), static_cast<std::streamsize>(png->size()));
  out.close();
  if (!out) return Error{"cannot write the screenshot to '" + options.screenshot_path + "'"};
  result.png_path = options.screenshot_path;
  return true;
}

Result<bool> drive(Devtools& devtools, const std::string& url, const RenderOptions& options, Clock::time_point deadline,
                   RenderResult& result) {
  PageSession page(devtools, deadline, result);
  auto opened = open_page(page, options);
  if (!opened) return opened;
  auto loaded = load_page(page, url, options);
  if (!loaded) return loaded;
  auto ran = run_scripts(page, options, result);
  if (!ran) return ran;
  return capture(page, options, result);
}

void render(const std::string& html_path, const RenderOptions& options, RenderResult& result) {
  const Clock::time_point start = Clock::now();
  const Clock::time_point deadline = start + options.timeout;
  std::error_code ec;
  fs::path page = fs::absolute(html_path, ec);
  if (ec || !fs::is_regular_file(page, ec)) {
    result.error = "cannot read '" + html_path + "': no such file";
    return;
  }
  TempDir dir;
  if (dir.path().empty()) {
    result.error = "cannot create a temporary directory for the chromium profile";
    return;
  }
  auto child = spawn_chromium(options, dir.path());
  if (!child) {
    result.error = child.error();
    return;
  }
  {
    Devtools devtools(child->fd);
    auto driven = drive(devtools, file_url(page), options, deadline, result);
    result.ran = driven.ok();
    if (!driven) result.error = driven.error();
    if (!devtools.closed()) devtools.send("Browser.close", Json::object(), "");
  }
  // After a timeout there is nothing to wait for: kill at once.
  result.exit_code = reap(child->pid, result.timed_out ? Clock::now() : Clock::now() + kCloseGrace);
  result.log = read_tail(dir.path() / "chromium.log", kLogCap);
  result.elapsed_ms =
      static_cast<long>(std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - start).count());
}

}  // namespace

const std::string& default_chromium() {
#ifdef SA_CHROMIUM
  static const std::string kBinary = SA_CHROMIUM;
#else
  static const std::string kBinary = "/usr/bin/chromium";
#endif
  return kBinary;
}

bool chromium_available(const std::string& binary) { return ::access(binary.c_str(), X_OK) == 0; }

RenderResult render_in_chromium(const std::string& html_path, const RenderOptions& options) {
  RenderResult result;
  try {
    render(html_path, options, result);
  } catch (const std::exception& e) {  // allocation failure or a library bug: report, not crash
    result.ran = false;
    result.error = std::string("internal error: ") + e.what();
  }
  return result;
}

std::string describe(const RenderResult& result) {
  std::ostringstream out;
  out << (result.ran ? "ran" : "did not run") << ", exit " << result.exit_code << ", " << result.elapsed_ms << " ms";
  if (!result.error.empty()) out << ", error: " << result.error;
  for (const std::string& e : result.console_errors) out << "\n  console error: " << e;
  for (const std::string& r : result.network_requests) out << "\n  network request: " << r;
  return out.str();
}

}  // namespace sa::browser
