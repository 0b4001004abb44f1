#include "chat/plugin_sinks.h"

#include <modelgw/sdk.hpp>

namespace modelgw::chat {

http::ApiError to_api_error(const mgw_error_info& info) {
  http::ApiError e;
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

namespace {
void ignore_chunk(void*, mgw_str) {}
void ignore_usage(void*, const mgw_usage*) {}
}  // namespace

RequestCollector::RequestCollector() {
  sink.struct_size = sizeof sink;
  sink.host_data = this;
  sink.callback_method = [](void* self, mgw_str m) {
    static_cast<RequestCollector*>(self)->request.method.assign(mgw::view(m));
  };
  sink.callback_path = [](void* self, mgw_str p) {
    static_cast<RequestCollector*>(self)->request.path.assign(mgw::view(p));
  };
  sink.callback_header = [](void* self, mgw_str n, mgw_str v) {
    static_cast<RequestCollector*>(self)->request.headers.emplace_back(std::string(mgw::view(n)),
                                                                       std::string(mgw::view(v)));
  };
  sink.callback_body = [](void* self, mgw_str b) {
    static_cast<RequestCollector*>(self)->request.body.assign(mgw::view(b));
  };
  error_sink.struct_size = sizeof error_sink;
  error_sink.host_data = this;
  error_sink.callback_body = &ignore_chunk;
  error_sink.callback_chunk = &ignore_chunk;
  error_sink.callback_usage = &ignore_usage;
  error_sink.callback_error = [](void* self, const mgw_error_info* e) {
    auto* c = static_cast<RequestCollector*>(self);
    if (!c->error) c->error = to_api_error(*e);
  };
}

ResponseCollector::ResponseCollector() {
  sink.struct_size = sizeof sink;
  sink.host_data = this;
  sink.callback_body = [](void* self, mgw_str b) {
    auto* c = static_cast<ResponseCollector*>(self);
    if (c->error) return;
    c->body.assign(mgw::view(b));
    c->has_body = true;
  };
  sink.callback_chunk = &ignore_chunk;
  sink.callback_usage = [](void* self, const mgw_usage* u) {
    static_cast<ResponseCollector*>(self)->usage = mgw::copy_usage(u);
  };
  sink.callback_error = [](void* self, const mgw_error_info* e) {
    auto* c = static_cast<ResponseCollector*>(self);
    if (!c->error) c->error = to_api_error(*e);
  };
}

}  // namespace modelgw::chat
