#include "load_generator.h"

#include "load_connection.h"

#include <sys/epoll.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <initializer_list>
#include <latch>
#include <memory>
#include <thread>
#include <vector>

namespace bench {
namespace {

using Clock = std::chrono::steady_clock;
constexpr std::size_t kMaxReasons = 8;
// How often the loop looks for a stalled connection or one to reconnect.
constexpr auto kScanEvery = std::chrono::milliseconds(5);
// A connection that failed to connect is tried again this much later (no
// hot loop on refusals).
constexpr auto kRetryAfter = std::chrono::milliseconds(1);

struct Times {
  Clock::time_point start_at;
  Clock::time_point warmup_end;
  Clock::time_point end;
};

struct WorkerResult {
  std::vector<std::int64_t> latencies_us;
  std::uint64_t warmup_requests = 0;
  std::uint64_t warmup_errors = 0;
  std::uint64_t errors = 0;
  std::map<std::string, std::uint64_t> reasons;

  void note(const std::string& reason) {
    if (reasons.size() < kMaxReasons || reasons.count(reason) != 0) ++reasons[reason];
  }
};

std::string status_reason(int status, const std::string& body) {
  std::string excerpt = body;
  for (char& c : excerpt) {
    if (c == '\n' || c == '\r') c = ' ';
  }
  return "HTTP " + std::to_string(status) + ": " + excerpt;
}

// The request bytes of one connection: the options' fixed request, or the
// same with a header of a new value each time.
class RequestSource {
 public:
  RequestSource(const LoadOptions& o, std::string tag) : fixed_(o.request) {
    if (o.unique_header.empty()) return;
    const auto line_end = o.request.find("\r\n");
    const std::size_t split = line_end == std::string::npos ? 0 : line_end + 2;
    head_ = o.request.substr(0, split) + o.unique_header + ": " + tag + "-";
    rest_ = "\r\n" + o.request.substr(split);
    unique_ = true;
    bytes_.reserve(head_.size() + 20 + rest_.size());
  }
  std::string_view next() {
    if (!unique_) return fixed_;
    bytes_.assign(head_).append(std::to_string(++count_)).append(rest_);
    return bytes_;
  }

 private:
  std::string_view fixed_;
  bool unique_ = false;
  std::string head_;  // request line, then the header's name and the value's prefix
  std::string rest_;  // the end of that line, then the other headers and the body
  std::string bytes_;
  std::uint64_t count_ = 0;
};

struct Slot {
  Slot(const LoadOptions& o, std::string tag) : conn(o.port), source(o, std::move(tag)) {}
  LoadConnection conn;
  RequestSource source;
  Clock::time_point started;        // of the request in flight
  Clock::time_point last_progress;  // bounds each socket operation by the timeout
  Clock::time_point retry_at;       // when closed: reconnect from then on
  bool in_flight = false;
};

class EventLoop {
 public:
  EventLoop(const LoadOptions& o, const Times& times, int first, int count, const std::string& tag)
      : o_(o), times_(times), epoll_(::epoll_create1(EPOLL_CLOEXEC)) {
    for (int i = 0; i < count; ++i)
      slots_.push_back(std::make_unique<Slot>(o, tag + "-" + std::to_string(first + i)));
  }
  ~EventLoop() {
    if (epoll_ >= 0) ::close(epoll_);
  }

  // Connects every slot before the start (a failure is a warm-up error and
  // retried once the loop runs).
  void connect_all() {
    for (auto& s : slots_) connect(*s, /*counted=*/true);
  }

  // The setup's connect errors (before run()).
  const WorkerResult& setup_result() const { return setup_; }

  void run(WorkerResult& out) {
    out_ = &out;
    out.latencies_us.reserve(1 << 16);
    std::this_thread::sleep_until(times_.start_at);
    Clock::time_point now = Clock::now();
    for (auto& s : slots_) {
      if (s->conn.is_open()) begin(*s, now);
    }
    epoll_event events[256];
    Clock::time_point next_scan = now + kScanEvery;
    while (true) {
      now = Clock::now();
      if (now >= times_.end || (o_.interrupted != nullptr && o_.interrupted->load())) break;
      const auto wait = std::min(next_scan, times_.end) - now;
      const int timeout_ms = static_cast<int>(
          std::max<std::int64_t>(0, std::chrono::ceil<std::chrono::milliseconds>(wait).count()));
      const int n = ::epoll_wait(epoll_, events, 256, timeout_ms);
      now = Clock::now();
      for (int i = 0; i < n; ++i) {
        Slot& s = *static_cast<Slot*>(events[i].data.ptr);
        if (s.in_flight) settle(s, s.conn.advance(), now);
      }
      if (now >= next_scan) {
        scan(now);
        next_scan = now + kScanEvery;
      }
    }
  }

 private:
  bool connect(Slot& s, bool counted) {
    if (!s.conn.open()) {
      if (counted) {
        ++out_or_setup().warmup_errors;
        out_or_setup().note("connect: " + s.conn.error());
      }
      s.retry_at = Clock::now() + kRetryAfter;
      return false;
    }
    epoll_event ev{};
    ev.events = EPOLLIN | EPOLLOUT | EPOLLET;
    ev.data.ptr = &s;
    ::epoll_ctl(epoll_, EPOLL_CTL_ADD, s.conn.fd(), &ev);
    return true;
  }

  // Before run() the setup's connect errors go to a result of their own.
  WorkerResult& out_or_setup() { return out_ != nullptr ? *out_ : setup_; }

  void begin(Slot& s, Clock::time_point now) {
    s.started = now;
    s.last_progress = now;
    s.in_flight = true;
    settle(s, s.conn.start(s.source.next()), now);
  }

  // Records a request that ended (its latency up to now, read again: the
  // events of one wake-up are handled one after the other) and starts the
  // next one on the connection.
  void settle(Slot& s, LoadConnection::Step step, Clock::time_point woken) {
    if (step == LoadConnection::Step::waiting) {
      s.last_progress = woken;
      return;
    }
    const Clock::time_point now = Clock::now();
    s.in_flight = false;
    WorkerResult& out = *out_;
    const bool in_window = s.started >= times_.warmup_end;
    if (!in_window) ++out.warmup_requests;
    std::string reason;
    if (step == LoadConnection::Step::failed) {
      reason = s.conn.error();
    } else if (s.conn.status() != 200) {
      reason = status_reason(s.conn.status(), s.conn.body_start());
    }
    if (!reason.empty()) {
      ++(in_window ? out.errors : out.warmup_errors);
      out.note(reason);
    } else if (in_window && now <= times_.end) {
      out.latencies_us.push_back(
          std::chrono::duration_cast<std::chrono::microseconds>(now - s.started).count());
    }
    if (now >= times_.end) return;
    if (step == LoadConnection::Step::failed || s.conn.server_closes() || !s.conn.is_open()) {
      s.conn.close();  // also leaves the epoll set
      s.retry_at = now + (step == LoadConnection::Step::failed ? kRetryAfter : Clock::duration::zero());
      if (s.retry_at > now || !connect(s, /*counted=*/false)) return;
    }
    begin(s, now);
  }

  // Fails a request without progress for the timeout; reconnects closed slots.
  void scan(Clock::time_point now) {
    const auto timeout = std::chrono::milliseconds(o_.timeout_ms);
    for (auto& p : slots_) {
      Slot& s = *p;
      if (s.in_flight && now - s.last_progress > timeout) {
        s.conn.close();
        s.in_flight = false;
        const bool in_window = s.started >= times_.warmup_end;
        if (!in_window) ++out_->warmup_requests;
        ++(in_window ? out_->errors : out_->warmup_errors);
        out_->note("no response within " + std::to_string(o_.timeout_ms) + " ms");
        s.retry_at = now;
      }
      if (!s.in_flight && !s.conn.is_open() && now >= s.retry_at) {
        if (!connect(s, /*counted=*/true)) continue;
        begin(s, now);
      }
    }
  }

  const LoadOptions& o_;
  const Times& times_;
  int epoll_;
  std::vector<std::unique_ptr<Slot>> slots_;
  WorkerResult* out_ = nullptr;
  WorkerResult setup_;  // connect errors before the start
};

}  // namespace

LoadResult run_load(const LoadOptions& o) {
  const int n = std::max(1, o.concurrency);
  const int threads = std::clamp(o.threads, 1, n);
  // A value no earlier pass or run has used: the unique header's prefix.
  const std::string tag = "bench-" + std::to_string(::getpid()) + "-" +
                          std::to_string(std::chrono::system_clock::now().time_since_epoch().count());
  Times times;
  std::vector<std::unique_ptr<EventLoop>> loops;
  for (int t = 0; t < threads; ++t) {
    const int first = n * t / threads;
    const int count = n * (t + 1) / threads - first;
    loops.push_back(std::make_unique<EventLoop>(o, times, first, count, tag));
  }
  std::vector<WorkerResult> results(static_cast<std::size_t>(threads));
  std::latch ready(threads + 1);
  std::vector<std::thread> workers;
  for (int t = 0; t < threads; ++t) {
    workers.emplace_back([&, t] {
      loops[static_cast<std::size_t>(t)]->connect_all();
      ready.arrive_and_wait();  // everyone starts together; the times are set by then
      loops[static_cast<std::size_t>(t)]->run(results[static_cast<std::size_t>(t)]);
    });
  }
  // The times are written before the latch releases the workers, which
  // orders the writes before their reads.
  times.start_at = Clock::now() + std::chrono::milliseconds(20);
  times.warmup_end =
      times.start_at + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(o.warmup_s));
  times.end = times.warmup_end +
              std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(o.duration_s));
  ready.arrive_and_wait();

  // Sleeps until `t`; false if interrupted first.
  const auto wait_until = [&](Clock::time_point t) {
    while (Clock::now() < t) {
      if (o.interrupted != nullptr && o.interrupted->load()) return false;
      std::this_thread::sleep_for(std::min<Clock::duration>(t - Clock::now(), std::chrono::milliseconds(50)));
    }
    return true;
  };
  if (wait_until(times.warmup_end) && o.on_measure_start) o.on_measure_start();
  wait_until(times.end);
  const auto window_end = std::min(Clock::now(), times.end);
  if (o.on_measure_end) o.on_measure_end();
  for (auto& w : workers) w.join();  // each loop stops at `end`; requests still in flight are dropped

  LoadResult r;
  r.concurrency = n;
  r.window_s = std::max(0.0, std::chrono::duration<double>(window_end - times.warmup_end).count());
  std::vector<std::int64_t> all;
  for (std::size_t t = 0; t < results.size(); ++t) {
    for (const WorkerResult* w :
         std::initializer_list<const WorkerResult*>{&loops[t]->setup_result(), &results[t]}) {
      all.insert(all.end(), w->latencies_us.begin(), w->latencies_us.end());
      r.warmup_requests += w->warmup_requests;
      r.warmup_errors += w->warmup_errors;
      r.errors += w->errors;
      for (const auto& [reason, count] : w->reasons) {
        if (r.error_reasons.size() < kMaxReasons || r.error_reasons.count(reason) != 0) {
          r.error_reasons[reason] += count;
        }
      }
    }
  }
  r.requests = all.size();
  r.rps = r.window_s > 0 ? static_cast<double>(r.requests) / r.window_s : 0;
  r.latency = summarize(all);
  return r;
}

}  // namespace bench
