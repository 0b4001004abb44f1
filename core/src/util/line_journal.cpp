#include "util/line_journal.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <stdexcept>

namespace modelgw::util {
namespace {

// "<call>: <what errno says>".
std::string journal_errno(const char* call) {
  return std::string(call) + ": " + std::strerror(errno);
}

}  // namespace

LineJournal::LineJournal(std::string path, std::string_view name, std::string_view path_setting)
    : path_(std::move(path)) {
  const std::string label = std::string(name) + " " + path_ + ": ";
  const std::filesystem::path p(path_);
  std::error_code ec;
  if (p.has_parent_path()) std::filesystem::create_directories(p.parent_path(), ec);
  fd_ = ::open(path_.c_str(), O_RDWR | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
  if (fd_ < 0) throw std::runtime_error(label + journal_errno("open"));
  if (::flock(fd_, LOCK_EX | LOCK_NB) != 0) {
    const std::string why = errno == EWOULDBLOCK
                                ? "another modelgw process uses it (set " + std::string(path_setting) +
                                      " to a file of this process's own)"
                                : journal_errno("flock");
    ::close(fd_);
    throw std::runtime_error(label + why);
  }
  struct stat st {};
  regular_ = ::fstat(fd_, &st) == 0 && S_ISREG(st.st_mode);
  if (regular_) bytes_ = static_cast<std::uint64_t>(st.st_size);
}

LineJournal::~LineJournal() {
  if (fd_ >= 0) ::close(fd_);
}

bool LineJournal::append(std::string_view text, std::string& why) {
  std::size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = ::write(fd_, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      why = journal_errno("write");
      break;
    }
    done += static_cast<std::size_t>(n);
  }
  if (done == text.size() && ::fdatasync(fd_) != 0 && errno != EINVAL) why = journal_errno("fdatasync");
  if (done < text.size() || !why.empty()) {
    // Nothing of a failed append may stay: cut the file back to where it was
    // (a device has nothing to cut). If even that fails, readers skip the
    // torn last line.
    if (regular_ && ::ftruncate(fd_, static_cast<off_t>(bytes_)) != 0)
      why += "; " + journal_errno("ftruncate");
    return false;
  }
  bytes_ += text.size();
  return true;
}

bool LineJournal::read_lines(const std::function<bool(std::string_view)>& line, std::string& why) const {
  std::string pending;
  char chunk[1 << 16];
  off_t offset = 0;
  while (true) {
    const ssize_t n = ::pread(fd_, chunk, sizeof chunk, offset);
    if (n < 0) {
      if (errno == EINTR) continue;
      why = journal_errno("read");
      return false;
    }
    if (n == 0) break;
    offset += n;
    pending.append(chunk, static_cast<std::size_t>(n));
    std::size_t start = 0;
    for (std::size_t nl; (nl = pending.find('\n', start)) != std::string::npos; start = nl + 1) {
      if (!line(std::string_view(pending).substr(start, nl - start))) return true;
    }
    pending.erase(0, start);
  }
  return true;
}

bool LineJournal::clear(std::string& why) {
  if (::ftruncate(fd_, 0) != 0 || (::fdatasync(fd_) != 0 && errno != EINVAL)) {
    why = journal_errno("ftruncate");
    return false;
  }
  bytes_ = 0;
  return true;
}

}  // namespace modelgw::util
