#include "analyzer/safe_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>
#include <cerrno>
#include <cstring>

#include <fmt/format.h>

#include "analyzer/text_util.h"

namespace sa {

namespace {

// linux/magic.h values: /proc and /sys files claim to be regular files of size 0, and
// /proc/self/environ or /proc/self/mem would hand the CI's secrets to the report.
constexpr long kProcSuperMagic = 0x9fa0;
constexpr long kSysfsMagic = 0x62656572;

// Closes the descriptor on every return path.
class Fd {
 public:
  explicit Fd(int fd) : fd_(fd) {}
  ~Fd() {
    if (fd_ >= 0) ::close(fd_);
  }
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  int get() const { return fd_; }

 private:
  int fd_;
};

std::string kind_of(mode_t mode) {
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISFIFO(mode)) return "a FIFO";
  if (S_ISCHR(mode) || S_ISBLK(mode)) return "a device";
  if (S_ISSOCK(mode)) return "a socket";
  return "not a regular file";
}

// Why the open file may not be read, or empty when it may.
std::string refusal(int fd, const std::string& shown, std::int64_t max_bytes, const struct stat& st) {
  if (!S_ISREG(st.st_mode)) return fmt::format("'{}' is {}; only regular files are read", shown, kind_of(st.st_mode));
  struct statfs fs {};
  if (::fstatfs(fd, &fs) == 0 && (fs.f_type == kProcSuperMagic || fs.f_type == kSysfsMagic)) {
    return fmt::format("'{}' is in /proc or /sys; only regular files are read", shown);
  }
  if (st.st_size > max_bytes) {
    return fmt::format("'{}' is too large ({} bytes, the limit is {}; raise it with --limit file-bytes=N)", shown,
                       static_cast<std::int64_t>(st.st_size), max_bytes);
  }
  return {};
}

// The path the kernel holds for an open descriptor, or empty where /proc is not mounted.
std::string descriptor_path(int fd) {
  const std::string link = fmt::format("/proc/self/fd/{}", fd);
  std::string out(4096, '\0');
  const ssize_t n = ::readlink(link.c_str(), out.data(), out.size());
  if (n <= 0 || static_cast<std::size_t>(n) >= out.size()) return {};
  out.resize(static_cast<std::size_t>(n));
  return out;
}

}  // namespace

Result<std::string> read_regular_file(const std::string& path, std::int64_t max_bytes, const AdmitPath& admit) {
  const std::string shown = printable(path, 200);
  // O_NONBLOCK: opening a FIFO for reading would otherwise wait for a writer forever.
  Fd fd(::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY));
  if (fd.get() < 0) return Error{fmt::format("cannot open '{}' ({})", shown, std::strerror(errno))};
  if (admit) {
    // Without /proc the caller's own check before the open is all there is.
    const std::string real = descriptor_path(fd.get());
    if (!real.empty() && !admit(real)) {
      return Error{fmt::format("'{}' was refused: it resolved elsewhere when opened", shown), ErrorKind::kRefused};
    }
  }
  struct stat st {};
  if (::fstat(fd.get(), &st) != 0) return Error{fmt::format("cannot read '{}'", shown)};
  if (std::string why = refusal(fd.get(), shown, max_bytes, st); !why.empty()) {
    const bool too_large = S_ISREG(st.st_mode) && st.st_size > max_bytes;
    return Error{why, too_large ? ErrorKind::kTooLarge : ErrorKind::kRefused};
  }
  std::string content;
  content.resize(static_cast<std::size_t>(st.st_size));
  std::size_t done = 0;
  // Read one byte past the size seen by fstat to notice a file that grows past the cap.
  char probe = 0;
  while (true) {
    char* dst = done < content.size() ? content.data() + done : &probe;
    const std::size_t want = done < content.size() ? content.size() - done : 1;
    const ssize_t n = ::read(fd.get(), dst, want);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return Error{fmt::format("cannot read '{}' ({})", shown, std::strerror(errno))};
    if (n == 0) break;
    if (done >= content.size()) {
      if (static_cast<std::int64_t>(content.size()) >= max_bytes) {
        return Error{fmt::format("'{}' grew past the limit of {} bytes while being read", shown, max_bytes),
                     ErrorKind::kTooLarge};
      }
      content.push_back(probe);
    }
    done += static_cast<std::size_t>(n);
  }
  content.resize(done);
  return content;
}

}  // namespace sa
