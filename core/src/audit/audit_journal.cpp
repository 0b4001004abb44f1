#include "audit/audit_journal.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <stdexcept>
#include <string_view>

namespace modelgw::audit {
namespace {

std::string os_error(const char* what) {
  return std::string(what) + ": " + std::strerror(errno);
}

std::string line_of(const Event& e) {
  const nlohmann::json j = {{"tenant_id", e.tenant_id}, {"actor", e.actor},           {"action", e.action},
                            {"target", e.target},       {"request_id", e.request_id}, {"details", e.details}};
  return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

bool event_of(std::string_view line, Event& out) {
  const auto j = nlohmann::json::parse(line, nullptr, false);
  if (!j.is_object()) return false;
  try {
    out.tenant_id = j.at("tenant_id").get<std::int64_t>();
    out.actor = j.at("actor").get<std::string>();
    out.action = j.at("action").get<std::string>();
    out.target = j.at("target").get<std::string>();
    out.request_id = j.at("request_id").get<std::string>();
    out.details = j.at("details");
  } catch (const nlohmann::json::exception&) {
    return false;
  }
  return true;
}

}  // namespace

AuditJournal::AuditJournal(std::string path) : path_(std::move(path)) {
  const std::filesystem::path p(path_);
  std::error_code ec;
  if (p.has_parent_path()) std::filesystem::create_directories(p.parent_path(), ec);
  fd_ = ::open(path_.c_str(), O_RDWR | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
  if (fd_ < 0) throw std::runtime_error("audit journal " + path_ + ": " + os_error("open"));
  if (::flock(fd_, LOCK_EX | LOCK_NB) != 0) {
    const std::string why = errno == EWOULDBLOCK ? "another modelgw process uses it (set audit.journal_path "
                                                   "to a file of this process's own)"
                                                 : os_error("flock");
    ::close(fd_);
    throw std::runtime_error("audit journal " + path_ + ": " + why);
  }
  std::deque<Event> left;
  std::string why;
  if (!read_all(left, why)) {
    ::close(fd_);
    throw std::runtime_error("audit journal " + path_ + ": " + why);
  }
  events_ = left.size();
  bytes_ = static_cast<std::uint64_t>(::lseek(fd_, 0, SEEK_END));
}

AuditJournal::~AuditJournal() {
  if (fd_ >= 0) ::close(fd_);
}

bool AuditJournal::append(const std::deque<Event>& events, std::string& why) {
  if (events.empty()) return true;
  std::string text;
  for (const Event& e : events) text += line_of(e);
  std::size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = ::write(fd_, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      why = os_error("write");
      break;
    }
    done += static_cast<std::size_t>(n);
  }
  if (done == text.size() && ::fdatasync(fd_) != 0 && errno != EINVAL) why = os_error("fdatasync");
  if (!why.empty()) {
    // Nothing of a failed append may stay: cut the file back to where it was.
    if (::ftruncate(fd_, static_cast<off_t>(bytes_)) != 0) why += "; " + os_error("ftruncate");
    return false;
  }
  bytes_ += text.size();
  events_ += events.size();
  return true;
}

bool AuditJournal::read_all(std::deque<Event>& out, std::string& why) const {
  std::string pending;
  char chunk[1 << 16];
  off_t offset = 0;
  while (true) {
    const ssize_t n = ::pread(fd_, chunk, sizeof chunk, offset);
    if (n < 0) {
      if (errno == EINTR) continue;
      why = os_error("read");
      return false;
    }
    if (n == 0) break;
    offset += n;
    pending.append(chunk, static_cast<std::size_t>(n));
    std::size_t start = 0;
    for (std::size_t nl; (nl = pending.find('\n', start)) != std::string::npos; start = nl + 1) {
      Event e;
      if (event_of(std::string_view(pending).substr(start, nl - start), e)) out.push_back(std::move(e));
    }
    pending.erase(0, start);
  }
  return true;  // a last line without '\n' was torn by a crash: not an event
}

bool AuditJournal::clear(std::string& why) {
  if (::ftruncate(fd_, 0) != 0 || (::fdatasync(fd_) != 0 && errno != EINVAL)) {
    why = os_error("ftruncate");
    return false;
  }
  bytes_ = 0;
  events_ = 0;
  return true;
}

}  // namespace modelgw::audit
