#include "chat/plugin_sinks.h"

#include "http/field_rules.h"
#include "util/ascii.h"

#include <modelgw/sdk.hpp>

#include <array>

namespace modelgw::chat {

errors::ApiError to_api_error(const mgw_error_info& info) {
  errors::ApiError e;
  e.status = (info.http_status >= 400 && info.http_status <= 599) ? info.http_status : 502;
  e.code = info.code.len > 0 ? std::string(mgw::view(info.code)) : "provider_failed";
  e.message = std::string(mgw::view(info.message));
  if (e.message.empty()) e.message = "the upstream provider failed";
  e.param = std::string(mgw::view(info.param));
  e.retryable = info.retryable != 0;
  if (info.retry_after_ms >= 0) e.retry_after_s = static_cast<int>((info.retry_after_ms + 999) / 1000);
  // A client told to slow down always learns when to come back.
  if (e.status == 429 && e.retry_after_s < 0) e.retry_after_s = 1;
  return e;
}

errors::ApiError plugin_breach(std::string_view provider, std::string_view plugin, std::string_view breach) {
  return errors::internal_error("the provider plugin '" + std::string(plugin) + "' of provider '" +
                                std::string(provider) + "' " + std::string(breach) +
                                "; report the request_id");
}

void SinkState::refuse(const char* why) noexcept {
  if (guard.failed()) return;
  guard.run([&] { breach = why; });
  guard.fail();
}

bool usage_size_ok(const mgw_usage* usage) {
  return usage != nullptr && usage->struct_size >= MGW_USAGE_SIZE_1_0;
}

bool error_size_ok(const mgw_error_info* error) {
  const auto ok = [](mgw_str s) { return s.ptr != nullptr || s.len == 0; };
  return error != nullptr && error->struct_size >= MGW_ERROR_INFO_SIZE_1_0 && ok(error->code) &&
         ok(error->message) && ok(error->param);
}

bool is_host_owned_header(std::string_view name) {
  static constexpr std::array<std::string_view, 8> kOwned = {
      "host", "content-length", "transfer-encoding", "connection", "keep-alive", "proxy-connection",
      "te",   "upgrade"};
  for (std::string_view own : kOwned) {
    if (util::iequals(name, own)) return true;
  }
  return false;
}

namespace {

// A view of a plugin's string; NULL with a length is a breach the caller checks.
bool valid(mgw_str s) {
  return s.ptr != nullptr || s.len == 0;
}

void ignore_chunk(void*, mgw_str) noexcept {}
void ignore_usage(void*, const mgw_usage*) noexcept {}

}  // namespace

RequestCollector::RequestCollector() {
  sink.struct_size = sizeof sink;
  sink.host_data = this;
  sink.callback_method = [](void* self, mgw_str m) noexcept {
    auto* c = static_cast<RequestCollector*>(self);
    if (!valid(m) || !http::is_token(mgw::view(m)))
      return c->state.refuse("built a request method that is not a token");
    c->state.guard.run([&] { c->request.method.assign(mgw::view(m)); });
  };
  sink.callback_path = [](void* self, mgw_str p) noexcept {
    auto* c = static_cast<RequestCollector*>(self);
    if (!valid(p) || !http::is_request_target_text(mgw::view(p))) {
      return c->state.refuse("built a request path with a space, a control or a non-ASCII byte");
    }
    c->state.guard.run([&] { c->request.path.assign(mgw::view(p)); });
  };
  sink.callback_header = [](void* self, mgw_str n, mgw_str v) noexcept {
    auto* c = static_cast<RequestCollector*>(self);
    if (!valid(n) || !http::is_token(mgw::view(n)))
      return c->state.refuse("built a header name that is not a token");
    if (!valid(v) || !http::is_field_value(mgw::view(v))) {
      return c->state.refuse("built a header value with CR, LF, NUL or another control character");
    }
    if (is_host_owned_header(mgw::view(n))) return;  // framing is the host's
    c->state.guard.run(
        [&] { c->request.headers.emplace_back(std::string(mgw::view(n)), std::string(mgw::view(v))); });
  };
  sink.callback_body = [](void* self, mgw_str b) noexcept {
    auto* c = static_cast<RequestCollector*>(self);
    if (!valid(b)) return c->state.refuse("passed a body with a NULL pointer");
    c->state.guard.run([&] { c->request.body.assign(mgw::view(b)); });
  };
  error_sink.struct_size = sizeof error_sink;
  error_sink.host_data = this;
  error_sink.callback_body = &ignore_chunk;
  error_sink.callback_chunk = &ignore_chunk;
  error_sink.callback_usage = &ignore_usage;
  error_sink.callback_error = [](void* self, const mgw_error_info* e) noexcept {
    auto* c = static_cast<RequestCollector*>(self);
    if (!error_size_ok(e)) return c->state.refuse("reported an error smaller than ABI 1.0 defines");
    c->state.guard.run([&] {
      if (!c->error) c->error = to_api_error(*e);
    });
  };
}

ResponseCollector::ResponseCollector() {
  sink.struct_size = sizeof sink;
  sink.host_data = this;
  sink.callback_body = [](void* self, mgw_str b) noexcept {
    auto* c = static_cast<ResponseCollector*>(self);
    if (c->error) return;  // nothing counts after an error
    if (!valid(b)) return c->state.refuse("passed a body with a NULL pointer");
    c->state.guard.run([&] {
      c->body.assign(mgw::view(b));
      c->has_body = true;
    });
  };
  sink.callback_chunk = &ignore_chunk;
  sink.callback_usage = [](void* self, const mgw_usage* u) noexcept {
    auto* c = static_cast<ResponseCollector*>(self);
    if (!usage_size_ok(u)) return c->state.refuse("reported usage smaller than ABI 1.0 defines");
    c->state.guard.run([&] { c->usage = mgw::copy_usage(u); });
  };
  sink.callback_error = [](void* self, const mgw_error_info* e) noexcept {
    auto* c = static_cast<ResponseCollector*>(self);
    if (!error_size_ok(e)) return c->state.refuse("reported an error smaller than ABI 1.0 defines");
    c->state.guard.run([&] {
      if (!c->error) c->error = to_api_error(*e);
    });
  };
}

}  // namespace modelgw::chat
