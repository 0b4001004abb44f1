// Optional C++17 helpers for plugin authors. Header-only and not part of the
// ABI: nothing here crosses the boundary except through plugin.h's types, so a
// plugin may use these or not without any effect on compatibility.
#pragma once

#include <modelgw/plugin.h>

#include <cstddef>
#include <cstring>
#include <string>
#include <string_view>

namespace mgw {

// Borrowed view of a std::string_view as an mgw_str. The caller keeps `s` alive
// for as long as the mgw_str is used.
inline mgw_str str(std::string_view s) noexcept {
  return mgw_str{s.data(), s.size()};
}

// The bytes of an mgw_str as a std::string_view (same lifetime as the mgw_str).
inline std::string_view view(mgw_str s) noexcept {
  return s.len == 0 ? std::string_view{} : std::string_view{s.ptr, s.len};
}

// The API a call is in (ABI 1.10): MGW_OPERATION_CHAT for a host older than
// 1.10, which sends chat only.
inline std::string_view operation(const mgw_call_context& call) noexcept {
  if (!MGW_HAS_FIELD(&call, mgw_call_context, operation) || call.operation.len == 0)
    return MGW_OPERATION_CHAT;
  return view(call.operation);
}

// The value of the client's request header `name` that the host passed on
// for a native call (ABI 1.11, mgw_call_context.client_headers), e.g.
// client_header(call, "anthropic-beta"); empty when absent, or when the host
// is older than 1.11. The host sends names in lower case; the match ignores
// ASCII case all the same.
inline std::string_view client_header(const mgw_call_context& call, std::string_view name) noexcept {
  if (!MGW_HAS_FIELD(&call, mgw_call_context, client_header_count) || call.client_headers == nullptr)
    return {};
  for (size_t i = 0; i < call.client_header_count; ++i) {
    const std::string_view n = view(call.client_headers[i].name);
    if (n.size() != name.size()) continue;
    bool same = true;
    for (size_t k = 0; k < n.size() && same; ++k) {
      const auto lower = [](char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; };
      same = lower(n[k]) == lower(name[k]);
    }
    if (same) return view(call.client_headers[i].value);
  }
  return {};
}

// Sends `text` to an optional text sink.

inline void say(const mgw_text_sink* sink, std::string_view text) noexcept {
  if (sink != nullptr && sink->callback_text != nullptr) sink->callback_text(sink->host_data, str(text));
}

// Logs through the host table when the level is enabled.
inline void log(const mgw_host_api* host, mgw_log_level level, std::string_view message) noexcept {
  if (host == nullptr || host->callback_log == nullptr) return;
  if (host->callback_log_enabled != nullptr && host->callback_log_enabled(host->host_data, level) == 0)
    return;
  host->callback_log(host->host_data, level, str(message));
}

// The entry symbol's first check: true when the host speaks this plugin's ABI
// major. Otherwise it logs one refusal line naming both majors (through the
// host's log callback only when the host table is at least as large as ours:
// another major may lay it out differently) and the entry must return NULL.
// `who` starts the line, e.g. "openai provider: ".
inline bool host_abi_supported(const mgw_host_api* host, std::string_view who) noexcept {
  if (host == nullptr) return false;
  if (host->abi_major == MGW_ABI_MAJOR) return true;
  if (host->struct_size >= sizeof(mgw_host_api)) {
    try {
      log(host, MGW_LOG_ERROR,
          std::string(who) + "refusing to load: host ABI major " + std::to_string(host->abi_major) +
              ", plugin built for ABI major " + std::to_string(MGW_ABI_MAJOR));
    } catch (...) {  // out of memory while logging: still refuse
    }
  }
  return false;
}

// Reports a spec error through a response sink.
inline void fail(const mgw_response_sink* out, int status, std::string_view code, std::string_view message,
                 std::string_view param = {}, bool retryable = false,
                 long long retry_after_ms = -1) noexcept {
  if (out == nullptr || out->callback_error == nullptr) return;
  mgw_error_info e{};
  e.struct_size = sizeof e;
  e.http_status = status;
  e.code = str(code);
  e.message = str(message);
  e.param = str(param);
  e.retryable = retryable ? 1 : 0;
  e.retry_after_ms = retry_after_ms;
  out->callback_error(out->host_data, &e);
}

// Token counts with struct_size set: what a plugin passes to callback_usage.
inline mgw_usage usage(long long prompt_tokens, long long completion_tokens) noexcept {
  mgw_usage u{};
  u.struct_size = sizeof u;
  u.prompt_tokens = prompt_tokens;
  u.completion_tokens = completion_tokens;
  u.total_tokens = prompt_tokens + completion_tokens;
  return u;
}

// The same with the prompt cache's share (ABI 1.2 and 1.11): of
// prompt_tokens, `cached` were read from the vendor's prompt cache and
// `cache_write` written into it.
inline mgw_usage usage(long long prompt_tokens, long long completion_tokens, long long cached,
                       long long cache_write) noexcept {
  mgw_usage u = usage(prompt_tokens, completion_tokens);
  u.cached_prompt_tokens = cached;
  u.cache_write_prompt_tokens = cache_write;
  return u;
}

// Reads what a plugin passed to callback_usage, whatever minor version built
// it: fields past its struct_size read as 0. Hosts and test sinks use this.
inline mgw_usage copy_usage(const mgw_usage* in) noexcept {
  mgw_usage u{};
  if (in == nullptr) return u;
  const size_t n = in->struct_size < sizeof u ? in->struct_size : sizeof u;
  std::memcpy(&u, in, n);
  u.struct_size = sizeof u;
  return u;
}

// One Server-Sent Event, as dispatched by SseDecoder.
struct SseEvent {
  std::string event;  // "message" when the stream named none
  std::string data;   // data lines joined with '\n'
  std::string id;
};

// Incremental decoder for a text/event-stream body, following the WHATWG
// event-stream rules: LF, CR and CRLF line ends (also split across feeds),
// comment lines (":") ignored, multi-line data joined with '\n', an event
// dispatched at a blank line, an event without data dropped. Bytes may arrive
// in any split; feed() keeps the partial line until the rest comes.
class SseDecoder {
 public:
  // Calls on_event(const SseEvent&) for every event completed by `bytes`.
  template <typename OnEvent>
  void feed(std::string_view bytes, OnEvent&& on_event) {
    for (char c : bytes) {
      if (bom_state_ < 3) {  // a UTF-8 byte order mark before the first line is dropped
        static constexpr char kBom[] = "\xEF\xBB\xBF";
        if (c == kBom[bom_state_]) {
          ++bom_state_;
          continue;
        }
        line_.append(kBom, bom_state_);  // it was not a mark after all
        bom_state_ = 3;
      }
      if (skip_lf_) {
        skip_lf_ = false;
        if (c == '\n') continue;
      }
      if (c == '\r' || c == '\n') {
        skip_lf_ = (c == '\r');
        line_done(on_event);
        continue;
      }
      if (line_.size() >= kMaxLine) {
        overflow_ = true;  // keep going, but the over-long line is dropped
        continue;
      }
      line_.push_back(c);
    }
  }

  // End of body: an unterminated final event is discarded, as the standard says.
  // Returns true when nothing was pending (the stream ended on an event boundary).
  bool finish() const noexcept { return line_.empty() && !has_data_; }

  // True once a line longer than kMaxLine, or data past kMaxEvent, was dropped:
  // the stream can no longer be trusted and should be reported as broken.
  bool overflowed() const noexcept { return overflow_; }

  static constexpr std::size_t kMaxLine = 16u << 20;   // 16 MiB per line
  static constexpr std::size_t kMaxEvent = 32u << 20;  // 32 MiB of data per event

 private:
  template <typename OnEvent>
  void line_done(OnEvent&& on_event) {
    if (overflow_line()) return;
    if (line_.empty()) {
      if (has_data_) {
        if (event_.event.empty()) event_.event = "message";
        on_event(static_cast<const SseEvent&>(event_));
      }
      event_ = SseEvent{};
      has_data_ = false;
      return;
    }
    std::string_view line{line_};
    if (line.front() == ':') {  // comment / keep-alive ping
      line_.clear();
      return;
    }
    std::string_view field = line;
    std::string_view value;
    if (auto colon = line.find(':'); colon != std::string_view::npos) {
      field = line.substr(0, colon);
      value = line.substr(colon + 1);
      if (!value.empty() && value.front() == ' ') value.remove_prefix(1);
    }
    if (field == "data") {
      if (event_.data.size() + value.size() + 1 > kMaxEvent) {
        overflow_ = true;  // an event that never ends must not grow without bound
      } else {
        if (has_data_) event_.data.push_back('\n');
        event_.data.append(value);
      }
      has_data_ = true;
    } else if (field == "event") {
      event_.event.assign(value);
    } else if (field == "id") {
      event_.id.assign(value);
    }  // "retry" and unknown fields are ignored
    line_.clear();
  }

  bool overflow_line() {
    if (!overflow_ || line_.size() < kMaxLine) return false;
    line_.clear();
    return true;
  }

  std::string line_;
  SseEvent event_;
  bool has_data_ = false;
  bool skip_lf_ = false;
  bool overflow_ = false;
  int bom_state_ = 0;  // bytes of a leading byte order mark seen; 3 once past it
};

}  // namespace mgw
