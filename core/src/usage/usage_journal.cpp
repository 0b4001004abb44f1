#include "usage/usage_journal.h"

#include "usage/journal_line.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <stdexcept>
#include <string_view>

namespace modelgw::usage {

namespace {

std::string system_error(const char* what) {
  return std::string(what) + ": " + std::strerror(errno);
}

// Reads the whole journal from the start, a chunk at a time, calling `line`
// for each complete line. A last line without its '\n' was torn by a crash.
template <typename OnLine>
bool read_lines(int fd, OnLine&& line, std::string& why) {
  std::string pending;
  char chunk[1 << 16];
  off_t offset = 0;
  while (true) {
    const ssize_t n = ::pread(fd, chunk, sizeof chunk, offset);
    if (n < 0) {
      if (errno == EINTR) continue;
      why = system_error("read");
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

}  // namespace

UsageJournal::UsageJournal(std::string path) : path_(std::move(path)) {
  const std::filesystem::path p(path_);
  std::error_code ec;
  if (p.has_parent_path()) std::filesystem::create_directories(p.parent_path(), ec);
  fd_ = ::open(path_.c_str(), O_RDWR | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
  if (fd_ < 0) throw std::runtime_error("usage journal " + path_ + ": " + system_error("open"));
  if (::flock(fd_, LOCK_EX | LOCK_NB) != 0) {
    const std::string why = errno == EWOULDBLOCK ? "another modelgw process uses it (set usage.journal_path "
                                                   "to a file of this process's own)"
                                                 : system_error("lock");
    ::close(fd_);
    throw std::runtime_error("usage journal " + path_ + ": " + why);
  }
  struct stat st {};
  if (::fstat(fd_, &st) == 0 && S_ISREG(st.st_mode)) {
    bytes_ = static_cast<std::uint64_t>(st.st_size);
    std::string why;
    read_lines(
        fd_,
        [&](std::string_view line) {
          if (!line.empty()) ++records_;
          return true;
        },
        why);
  }
}

UsageJournal::~UsageJournal() {
  if (fd_ >= 0) ::close(fd_);
}

bool UsageJournal::append(const std::vector<plugins::UsageRow>& rows, std::string& why) {
  if (rows.empty()) return true;
  std::string text;
  text.reserve(rows.size() * 512);
  for (const auto& r : rows) append_journal_line(r, text);
  std::size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = ::write(fd_, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      why = system_error("write");
      break;
    }
    done += static_cast<std::size_t>(n);
  }
  if (done == text.size() && ::fdatasync(fd_) != 0 && errno != EINVAL) why = system_error("fdatasync");
  if (done < text.size() || !why.empty()) {
    // Nothing half-written stays behind: the batch is kept in memory and
    // appended again later, whole.
    if (::ftruncate(fd_, static_cast<off_t>(bytes_)) != 0) {
      // The torn tail stays; replay skips the line it cut.
    }
    return false;
  }
  bytes_ += text.size();
  records_ += rows.size();
  return true;
}

bool UsageJournal::replay(std::size_t batch,
                          const std::function<bool(const std::vector<plugins::UsageRow>&)>& store,
                          std::uint64_t& replayed, std::uint64_t& skipped, std::string& why) {
  replayed = 0;
  skipped = 0;
  if (records_ == 0 && bytes_ == 0) return true;
  std::vector<plugins::UsageRow> rows;
  bool refused = false;
  auto flush = [&] {
    if (rows.empty()) return true;
    bool ok = false;
    try {
      ok = store(rows);
    } catch (const std::exception& e) {
      why = e.what();
    }
    if (!ok) {
      refused = true;
      return false;
    }
    replayed += rows.size();
    rows.clear();
    return true;
  };
  const bool read = read_lines(
      fd_,
      [&](std::string_view line) {
        if (line.empty()) return true;
        if (auto row = parse_journal_line(line)) {
          rows.push_back(std::move(*row));
        } else {
          ++skipped;
        }
        return rows.size() < batch || flush();
      },
      why);
  if (!read || refused || !flush()) return false;
  if (::ftruncate(fd_, 0) != 0 || ::fdatasync(fd_) != 0) {
    why = system_error("truncate");
    return false;
  }
  bytes_ = 0;
  records_ = 0;
  return true;
}

}  // namespace modelgw::usage
