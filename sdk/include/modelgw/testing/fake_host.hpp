// A stand-in for the gateway, so a vendor can unit-test a plugin without it:
// a host table that records log lines, and sinks that record everything a
// plugin emits. Header-only C++17; use it from GoogleTest or any test runner.
#pragma once

#include <modelgw/plugin.h>
#include <modelgw/sdk.hpp>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace mgw::testing {

class FakeHost {
 public:
  FakeHost() {
    api_.struct_size = sizeof api_;
    api_.abi_major = MGW_ABI_MAJOR;
    api_.abi_minor = MGW_ABI_MINOR;
    api_.host_data = this;
    api_.callback_log_enabled = [](void*, mgw_log_level) -> int32_t { return 1; };
    api_.callback_log = [](void* self, mgw_log_level level, mgw_str message) {
      auto* host = static_cast<FakeHost*>(self);
      std::lock_guard lock(host->mutex_);
      host->logs_.emplace_back(level, std::string(view(message)));
    };
    api_.callback_now_unix_ms = [](void*) -> int64_t {
      using namespace std::chrono;
      return duration_cast<milliseconds>(system_clock::now().time_since_epoch()).count();
    };
    api_.callback_monotonic_ns = [](void*) -> int64_t {
      using namespace std::chrono;
      return duration_cast<nanoseconds>(steady_clock::now().time_since_epoch()).count();
    };
  }
  FakeHost(const FakeHost&) = delete;
  FakeHost& operator=(const FakeHost&) = delete;

  const mgw_host_api* api() const { return &api_; }

  std::vector<std::pair<mgw_log_level, std::string>> logs() const {
    std::lock_guard lock(mutex_);
    return logs_;
  }

 private:
  mgw_host_api api_{};
  mutable std::mutex mutex_;
  std::vector<std::pair<mgw_log_level, std::string>> logs_;
};

// Records an error reported through an mgw_text_sink.
struct TextRecorder {
  std::string text;
  mgw_text_sink sink{this,
                     [](void* self, mgw_str t) { static_cast<TextRecorder*>(self)->text.append(view(t)); }};
};

// Records what on_build_request produced.
struct RequestRecorder {
  std::string method = "POST";
  std::string path;
  std::vector<std::pair<std::string, std::string>> headers;
  std::string body;
  mgw_request_sink sink{
      sizeof(mgw_request_sink),
      this,
      [](void* self, mgw_str m) { static_cast<RequestRecorder*>(self)->method.assign(view(m)); },
      [](void* self, mgw_str p) { static_cast<RequestRecorder*>(self)->path.assign(view(p)); },
      [](void* self, mgw_str n, mgw_str v) {
        static_cast<RequestRecorder*>(self)->headers.emplace_back(std::string(view(n)), std::string(view(v)));
      },
      [](void* self, mgw_str b) { static_cast<RequestRecorder*>(self)->body.assign(view(b)); }};

  std::optional<std::string> header(std::string_view name) const {
    for (const auto& [n, v] : headers) {
      if (n.size() == name.size() && std::equal(n.begin(), n.end(), name.begin(), [](char a, char b) {
            return std::tolower(static_cast<unsigned char>(a)) == std::tolower(static_cast<unsigned char>(b));
          }))
        return v;
    }
    return std::nullopt;
  }
};

// A copied mgw_error_info.
struct RecordedError {
  int http_status = 0;
  std::string code;
  std::string message;
  std::string param;
  bool retryable = false;
  long long retry_after_ms = -1;
};

// Records what a response or stream hook emitted.
struct ResponseRecorder {
  std::string body;
  std::vector<std::string> chunks;
  std::optional<mgw_usage> usage;
  std::optional<RecordedError> error;
  mgw_response_sink sink{
      sizeof(mgw_response_sink),
      this,
      [](void* self, mgw_str b) { static_cast<ResponseRecorder*>(self)->body.assign(view(b)); },
      [](void* self, mgw_str c) { static_cast<ResponseRecorder*>(self)->chunks.emplace_back(view(c)); },
      [](void* self, const mgw_usage* u) { static_cast<ResponseRecorder*>(self)->usage = copy_usage(u); },
      [](void* self, const mgw_error_info* e) {
        static_cast<ResponseRecorder*>(self)->error =
            RecordedError{e->http_status,
                          std::string(view(e->code)),
                          std::string(view(e->message)),
                          std::string(view(e->param)),
                          e->retryable != 0,
                          static_cast<long long>(e->retry_after_ms)};
      }};
};

// A call context whose strings live as long as the object.
struct CallContext {
  std::string request_id = "req_test";
  std::string alias = "test-alias";
  std::string upstream_model = "test-model";
  int64_t created_unix = 1700000000;
  bool stream = false;
  int64_t default_max_tokens = 0;
  int64_t prompt_tokens = 0;
  // ABI 1.1: the body's member index, as a host gives it (views into the
  // body passed to the same on_build_request call); unused when empty.
  std::vector<mgw_json_member> members;
  // ABI 1.10: the API the call is in (MGW_OPERATION_RESPONSES, ...); empty
  // means chat.
  std::string operation;
  // ABI 1.11: the client's headers a native call passes on (names in lower
  // case, as a host sends them), e.g. {{"anthropic-beta", "..."}}.
  std::vector<std::pair<std::string, std::string>> client_headers;

  // The context, valid while this object lives and until the next get().
  mgw_call_context get() const {
    mgw_call_context c{};
    c.struct_size = sizeof c;
    c.request_id = str(request_id);
    c.alias = str(alias);
    c.upstream_model = str(upstream_model);
    c.created_unix = created_unix;
    c.stream = stream ? 1 : 0;
    c.default_max_tokens = default_max_tokens;
    c.prompt_tokens = prompt_tokens;
    c.members = members.empty() ? nullptr : members.data();
    c.member_count = members.size();
    c.operation = str(operation);
    header_views_.clear();
    for (const auto& [name, value] : client_headers)
      header_views_.push_back(mgw_header{str(name), str(value)});
    c.client_headers = header_views_.empty() ? nullptr : header_views_.data();
    c.client_header_count = header_views_.size();
    return c;
  }

 private:
  mutable std::vector<mgw_header> header_views_;
};

}  // namespace mgw::testing
