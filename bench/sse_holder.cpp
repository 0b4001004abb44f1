#include "sse_holder.h"

#include "http_wire.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <memory>
#include <nlohmann/json.hpp>

namespace bench {
namespace {

using Clock = std::chrono::steady_clock;
constexpr std::size_t kMaxSamples = 5;
constexpr std::size_t kMaxBuffered = 1 << 20;

enum class Phase { connecting, sending, head, body, error_body, finished };

const char* phase_name(Phase p) {
  switch (p) {
    case Phase::connecting:
      return "connecting";
    case Phase::sending:
      return "sending the request";
    case Phase::head:
      return "waiting for the response head";
    case Phase::body:
      return "reading events";
    case Phase::error_body:
      return "reading an error body";
    case Phase::finished:
      return "finished";
  }
  return "?";
}

struct Stream {
  int fd = -1;
  Phase phase = Phase::connecting;
  std::size_t sent = 0;
  std::string raw;  // undecoded bytes: the head, then an error body
  ResponseHead head;
  ChunkedDecoder chunked;
  std::string sse;  // decoded body not yet split into events
  std::string content;
  int events = 0;
  bool done_seen = false;
  bool counted_open = false;
  Clock::time_point started;
};

class Holder {
 public:
  explicit Holder(const StreamOptions& o)
      : o_(o), streams_(static_cast<std::size_t>(std::max(0, o.streams))) {}

  StreamResult run() {
    r_.requested = static_cast<int>(streams_.size());
    epfd_ = ::epoll_create1(EPOLL_CLOEXEC);
    if (epfd_ < 0) {
      for (std::size_t i = 0; i < streams_.size(); ++i) fail(i, "epoll", std::strerror(errno));
      return r_;
    }
    begin_ = Clock::now();
    if (o_.open_rate <= 0) {
      for (std::size_t i = 0; i < streams_.size(); ++i) start(i);
      next_start_ = streams_.size();
    }
    loop();
    ::close(epfd_);
    r_.total_s = seconds_since_begin();
    r_.errors = r_.requested - r_.completed;
    r_.first_event_latency = summarize(first_event_us_);
    r_.duration = summarize(duration_us_);
    return r_;
  }

 private:
  double seconds_since_begin() const { return std::chrono::duration<double>(Clock::now() - begin_).count(); }

  void start(std::size_t i) {
    Stream& s = streams_[i];
    s.started = Clock::now();
    s.fd = ::socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (s.fd < 0) return fail(i, "socket failed", std::strerror(errno));
    ++live_;  // counted from here on: close_stream() closes the fd and uncounts it
    const int one = 1;
    ::setsockopt(s.fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    addr.sin_port = htons(o_.port);
    if (::connect(s.fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 && errno != EINPROGRESS) {
      return fail(i, "connect failed", std::strerror(errno));
    }
    epoll_event ev{};
    ev.events = EPOLLOUT;
    ev.data.u64 = i;
    if (::epoll_ctl(epfd_, EPOLL_CTL_ADD, s.fd, &ev) != 0) fail(i, "epoll_ctl failed", std::strerror(errno));
  }

  void loop() {
    const auto deadline =
        begin_ + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(o_.timeout_s));
    auto next_tick = Clock::now();
    std::vector<epoll_event> events(1024);
    while (live_ > 0 || next_start_ < streams_.size()) {
      const auto now = Clock::now();
      start_due(now);
      if (now >= next_tick) {
        if (o_.on_tick) o_.on_tick(open_now_);
        next_tick = now + std::chrono::milliseconds(100);
      }
      if (now >= deadline || (o_.interrupted != nullptr && o_.interrupted->load())) {
        const std::string why = now >= deadline ? "timed out" : "interrupted";
        for (std::size_t i = 0; i < streams_.size(); ++i) {
          if (streams_[i].phase != Phase::finished) {
            fail(i, why + " while " + phase_name(streams_[i].phase),
                 "after " + std::to_string(streams_[i].events) + " events");
          }
        }
        break;
      }
      // While streams are still being opened, wake up often enough to keep the pace.
      const int wait_ms = next_start_ < streams_.size() ? 1 : 50;
      const int n = ::epoll_wait(epfd_, events.data(), static_cast<int>(events.size()), wait_ms);
      for (int k = 0; k < n; ++k) {
        const auto i = static_cast<std::size_t>(events[static_cast<std::size_t>(k)].data.u64);
        if (streams_[i].phase != Phase::finished) on_ready(i, events[static_cast<std::size_t>(k)].events);
      }
    }
  }

  // Starts every stream whose time has come: stream i at begin + i / rate.
  void start_due(Clock::time_point now) {
    if (next_start_ >= streams_.size()) return;
    const double elapsed = std::chrono::duration<double>(now - begin_).count();
    const auto due = static_cast<std::size_t>(elapsed * o_.open_rate) + 1;
    while (next_start_ < streams_.size() && next_start_ < due) start(next_start_++);
  }

  void on_ready(std::size_t i, std::uint32_t ev) {
    Stream& s = streams_[i];
    if (s.phase == Phase::connecting) {
      int err = 0;
      socklen_t len = sizeof err;
      ::getsockopt(s.fd, SOL_SOCKET, SO_ERROR, &err, &len);
      if (err != 0) return fail(i, "connect failed", std::strerror(err));
      if ((ev & (EPOLLERR | EPOLLHUP)) != 0) return fail(i, "connect failed", "socket error");
      ++r_.connected;
      s.phase = Phase::sending;
    }
    if (s.phase == Phase::sending) return send_more(i);
    receive(i);
  }

  void send_more(std::size_t i) {
    Stream& s = streams_[i];
    while (s.sent < o_.request.size()) {
      const ssize_t n = ::send(s.fd, o_.request.data() + s.sent, o_.request.size() - s.sent, MSG_NOSIGNAL);
      if (n < 0 && errno == EINTR) continue;
      if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return;  // EPOLLOUT again later
      if (n <= 0) return fail(i, "send failed", std::strerror(errno));
      s.sent += static_cast<std::size_t>(n);
    }
    s.phase = Phase::head;
    epoll_event ev{};
    ev.events = EPOLLIN | EPOLLRDHUP;
    ev.data.u64 = i;
    ::epoll_ctl(epfd_, EPOLL_CTL_MOD, s.fd, &ev);
  }

  void receive(std::size_t i) {
    Stream& s = streams_[i];
    const ssize_t n = ::recv(s.fd, buffer_, sizeof buffer_, 0);
    if (n < 0) {
      if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR) return;
      return fail(i, "receive failed while " + std::string(phase_name(s.phase)), std::strerror(errno));
    }
    if (n == 0) return on_eof(i);
    const std::string_view data(buffer_, static_cast<std::size_t>(n));
    switch (s.phase) {
      case Phase::head:
        s.raw.append(data);
        return parse_head_bytes(i);
      case Phase::error_body:
        s.raw.append(data);
        return check_error_body(i);
      case Phase::body:
        return feed_body(i, data);
      default:
        return;
    }
  }

  void parse_head_bytes(std::size_t i) {
    Stream& s = streams_[i];
    const std::size_t len = head_length(s.raw);
    if (len == 0) {
      if (s.raw.size() > 64 * 1024) fail(i, "bad response", "head larger than 64 KiB");
      return;
    }
    const auto head = parse_head(std::string_view(s.raw).substr(0, len));
    if (!head) return fail(i, "bad response", "malformed head");
    s.head = *head;
    std::string rest = s.raw.substr(len);
    s.raw.clear();
    if (s.head.status != 200) {
      s.phase = Phase::error_body;
      s.raw = std::move(rest);
      return check_error_body(i);
    }
    ++r_.opened;
    s.phase = Phase::body;
    if (!rest.empty()) feed_body(i, rest);
  }

  // A non-200 answer: collect its body (bounded) for the error report.
  void check_error_body(std::size_t i) {
    Stream& s = streams_[i];
    bool complete = false;  // without framing: until the server closes
    if (s.head.content_length) {
      complete = s.raw.size() >= *s.head.content_length;
    } else if (s.head.chunked) {
      complete = s.raw.find("0\r\n\r\n") != std::string::npos;
    }
    if (complete || s.raw.size() > 2048) error_status(i);
  }

  void error_status(std::size_t i) {
    Stream& s = streams_[i];
    std::string excerpt = s.raw.substr(0, 200);
    std::replace(excerpt.begin(), excerpt.end(), '\n', ' ');
    std::replace(excerpt.begin(), excerpt.end(), '\r', ' ');
    fail(i, "HTTP " + std::to_string(s.head.status), excerpt);
  }

  void feed_body(std::size_t i, std::string_view data) {
    Stream& s = streams_[i];
    std::string decoded;
    if (s.head.chunked) {
      s.chunked.feed(data, decoded);
      if (s.chunked.failed()) return fail(i, "bad response", "malformed chunked encoding");
    } else {
      decoded.assign(data);
    }
    decoded.erase(std::remove(decoded.begin(), decoded.end(), '\r'), decoded.end());
    s.sse += decoded;
    if (s.sse.size() > kMaxBuffered) return fail(i, "bad response", "an SSE event larger than 1 MiB");
    std::size_t pos = 0;
    std::size_t end = 0;
    while ((end = s.sse.find("\n\n", pos)) != std::string::npos) {
      on_event(i, std::string_view(s.sse).substr(pos, end - pos));
      if (s.phase == Phase::finished) return;
      pos = end + 2;
    }
    s.sse.erase(0, pos);
    if (s.head.chunked && s.chunked.done()) finish(i);
  }

  void on_event(std::size_t i, std::string_view event) {
    Stream& s = streams_[i];
    std::string data;
    std::size_t pos = 0;
    while (pos <= event.size()) {
      std::size_t nl = event.find('\n', pos);
      if (nl == std::string_view::npos) nl = event.size();
      std::string_view line = event.substr(pos, nl - pos);
      pos = nl + 1;
      if (line.rfind("data:", 0) != 0) continue;  // comments, event:, id:
      line.remove_prefix(5);
      if (!line.empty() && line.front() == ' ') line.remove_prefix(1);
      if (!data.empty()) data += '\n';
      data.append(line);
    }
    if (data.empty()) return;
    if (!s.counted_open) {
      s.counted_open = true;
      ++r_.first_event;
      ++open_now_;
      r_.peak_open = std::max(r_.peak_open, open_now_);
      first_event_us_.push_back(
          std::chrono::duration_cast<std::chrono::microseconds>(Clock::now() - s.started).count());
      if (r_.first_event == r_.requested) r_.time_to_open_all_s = seconds_since_begin();
    }
    if (s.done_seen) return;  // anything after [DONE] is ignored, as a client would
    ++s.events;
    if (data == "[DONE]") {
      s.done_seen = true;
      return;
    }
    const auto json = nlohmann::json::parse(data, nullptr, /*allow_exceptions=*/false);
    if (json.is_discarded() || !json.is_object())
      return fail(i, "bad event", "not a JSON object: " + data.substr(0, 120));
    if (json.contains("error")) return fail(i, "error event", data.substr(0, 200));
    if (const auto type = json.find("type"); type != json.end() && type->is_string()) {
      // A Responses API event; chat chunks have no `type`.
      const auto& name = type->get_ref<const std::string&>();
      if (name == "response.output_text.delta") {
        const auto delta = json.find("delta");
        if (delta != json.end() && delta->is_string()) s.content += delta->get<std::string>();
      } else if (name == "response.completed" || name == "response.incomplete") {
        s.done_seen = true;  // as [DONE]: the content check says whether it is whole
      } else if (name == "response.failed") {
        return fail(i, "error event", data.substr(0, 200));
      }
      return;
    }
    const auto choices = json.find("choices");
    if (choices == json.end() || !choices->is_array() || choices->empty()) return;  // e.g. the usage chunk
    const auto& delta = (*choices)[0].value("delta", nlohmann::json::object());
    const auto content = delta.find("content");
    if (content != delta.end() && content->is_string()) s.content += content->get<std::string>();
  }

  void on_eof(std::size_t i) {
    Stream& s = streams_[i];
    if (s.phase == Phase::error_body) return error_status(i);
    if (s.phase == Phase::body && !s.head.chunked && !s.head.content_length) return finish(i);
    fail(i, s.done_seen ? "closed after [DONE] without the final chunk" : "closed before [DONE]",
         "while " + std::string(phase_name(s.phase)) + ", after " + std::to_string(s.events) + " events");
  }

  void finish(std::size_t i) {
    Stream& s = streams_[i];
    if (!s.done_seen) return fail(i, "ended without [DONE]", "after " + std::to_string(s.events) + " events");
    if (s.content != o_.expected_content) {
      return fail(i, "missing chunks",
                  "got " + std::to_string(s.content.size()) + " of " +
                      std::to_string(o_.expected_content.size()) + " content bytes in " +
                      std::to_string(s.events) + " events");
    }
    ++r_.completed;
    duration_us_.push_back(
        std::chrono::duration_cast<std::chrono::microseconds>(Clock::now() - s.started).count());
    close_stream(i);
  }

  void fail(std::size_t i, const std::string& kind, const std::string& detail) {
    ++r_.error_kinds[kind];
    if (r_.error_samples.size() < kMaxSamples) {
      r_.error_samples.push_back("stream " + std::to_string(i) + ": " + kind + ": " + detail);
    }
    close_stream(i);
  }

  void close_stream(std::size_t i) {
    Stream& s = streams_[i];
    if (s.phase == Phase::finished) return;
    if (s.counted_open) --open_now_;
    if (s.fd >= 0) {
      ::close(s.fd);  // also leaves the epoll set
      --live_;
    }
    s.fd = -1;
    s.phase = Phase::finished;
    s.raw.clear();
    s.raw.shrink_to_fit();
    s.sse.clear();
    s.sse.shrink_to_fit();
  }

  const StreamOptions& o_;
  std::vector<Stream> streams_;
  StreamResult r_;
  int epfd_ = -1;
  int live_ = 0;
  int open_now_ = 0;
  std::size_t next_start_ = 0;  // streams [0, next_start_) have been started
  Clock::time_point begin_;
  std::vector<std::int64_t> first_event_us_;
  std::vector<std::int64_t> duration_us_;
  char buffer_[65536];
};

}  // namespace

StreamResult hold_streams(const StreamOptions& options) {
  auto holder = std::make_unique<Holder>(options);
  return holder->run();
}

}  // namespace bench
