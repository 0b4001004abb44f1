// The C ABI surface: the entry symbol, the descriptor and the hook table.
// Every hook is a thin shell that checks its arguments, forwards to the module
// that does the work, and stops every exception at the boundary.
#include "error_mapper.h"
#include "http_util.h"
#include "provider_config.h"
#include "request_builder.h"
#include "response_mapper.h"
#include "stream_decoder.h"

#include <modelgw/plugin.h>
#include <modelgw/sdk.hpp>

#include <string>
#include <utility>

// The opaque handles of plugin.h, defined here and nowhere else.
struct mgw_provider {
  mgw::anthropic::ProviderConfig config;  // read-only after creation: shared across threads
  const mgw_host_api* host = nullptr;     // valid until the plugin is unloaded
};

struct mgw_provider_stream {
  const mgw_provider* provider = nullptr;
  mgw::anthropic::StreamDecoder decoder;
};

namespace mgw::anthropic {
namespace {

constexpr const char* kName = "anthropic";
constexpr const char* kVersion = "1.0.0";

// Logs a caught exception by the hook's name only: an exception's text may
// quote request or response bytes, which must not reach the log.
void log_exception(const mgw_host_api* host, std::string_view hook) noexcept {
  try {
    log(host, MGW_LOG_ERROR, "anthropic provider: unexpected failure in " + std::string(hook));
  } catch (...) {  // out of memory while logging: nothing more to do
  }
}

// Retryable, as spec §7.2 says of a 500: the failure (e.g. out of memory) is
// not a property of the request.
void fail_internal(const mgw_response_sink* out) noexcept {
  fail(out, 500, kInternalError, "the anthropic provider plugin failed unexpectedly", {}, /*retryable=*/true);
}

ErrorContext error_context(const mgw_provider& p, const mgw_call_context& call, int32_t status) {
  ErrorContext ctx;
  ctx.api_key = p.config.api_key;
  ctx.upstream_model = view(call.upstream_model);
  if (status < 200 || status > 299) {  // only an error can need the clock (retry-after as a date)
    ctx.now_unix_ms = now_unix_ms(p.host);
  }
  return ctx;
}

mgw_status on_provider_new(const mgw_host_api* host, mgw_str config_json, mgw_provider** out,
                           const mgw_text_sink* error) {
  if (out == nullptr) {
    return MGW_INVALID_ARGUMENT;
  }
  *out = nullptr;
  try {
    std::string problem;
    auto config = parse_config(view(config_json), problem);
    if (!config) {
      say(error, problem);
      return MGW_INVALID_ARGUMENT;
    }
    // Say how requests authenticate, never with what.
    log(host, MGW_LOG_INFO,
        config->api_key.empty()
            ? "anthropic provider: no api_key configured, requests carry no x-api-key header"
            : "anthropic provider: requests authenticate with the configured api_key");
    *out = new mgw_provider{std::move(*config), host};
    return MGW_OK;
  } catch (...) {
    log_exception(host, "on_provider_new");
    say(error, "the anthropic provider plugin failed unexpectedly while reading its configuration");
    return MGW_INTERNAL;
  }
}

void on_provider_destroy(mgw_provider* provider) {
  delete provider;
}

mgw_status on_build_request(mgw_provider* provider, const mgw_call_context* call, mgw_str request_json,
                            const mgw_request_sink* out, const mgw_response_sink* error) {
  if (provider == nullptr || call == nullptr || out == nullptr) {
    return MGW_INVALID_ARGUMENT;
  }
  try {
    return build_request(provider->config, *call, view(request_json), *out, error);
  } catch (...) {
    log_exception(provider->host, "on_build_request");
    fail_internal(error);
    return MGW_INTERNAL;
  }
}

// A vendor failure is a translation like any other: it goes to callback_error
// and the hook returns MGW_OK. MGW_INTERNAL means the plugin itself failed.
mgw_status on_parse_response(mgw_provider* provider, const mgw_call_context* call, int32_t http_status,
                             const mgw_header* headers, size_t header_count, mgw_str body,
                             const mgw_response_sink* out) {
  if (provider == nullptr || call == nullptr || out == nullptr) {
    return MGW_INVALID_ARGUMENT;
  }
  try {
    map_response(error_context(*provider, *call, http_status), *call, http_status, headers, header_count,
                 view(body), *out);
    return MGW_OK;
  } catch (...) {
    log_exception(provider->host, "on_parse_response");
    fail_internal(out);
    return MGW_INTERNAL;
  }
}

mgw_status on_stream_new(mgw_provider* provider, const mgw_call_context* call, mgw_provider_stream** out) {
  if (out == nullptr) {
    return MGW_INVALID_ARGUMENT;
  }
  *out = nullptr;
  if (provider == nullptr || call == nullptr) {
    return MGW_INVALID_ARGUMENT;
  }
  try {
    *out = new mgw_provider_stream{provider, StreamDecoder(provider->config, *call)};
    return MGW_OK;
  } catch (...) {
    log_exception(provider->host, "on_stream_new");
    return MGW_INTERNAL;
  }
}

mgw_status on_stream_data(mgw_provider_stream* stream, mgw_str bytes, const mgw_response_sink* out) {
  if (stream == nullptr || out == nullptr) {
    return MGW_INVALID_ARGUMENT;
  }
  try {
    stream->decoder.feed(view(bytes), *out);
    return MGW_OK;
  } catch (...) {
    log_exception(stream->provider->host, "on_stream_data");
    stream->decoder.fail_internal(*out);
    return MGW_INTERNAL;
  }
}

mgw_status on_stream_end(mgw_provider_stream* stream, const mgw_response_sink* out) {
  if (stream == nullptr || out == nullptr) {
    return MGW_INVALID_ARGUMENT;
  }
  try {
    stream->decoder.end(*out);
    return MGW_OK;
  } catch (...) {
    log_exception(stream->provider->host, "on_stream_end");
    stream->decoder.fail_internal(*out);
    return MGW_INTERNAL;
  }
}

void on_stream_destroy(mgw_provider_stream* stream) {
  delete stream;
}

constexpr mgw_provider_hooks kHooks = {
    sizeof(mgw_provider_hooks), &on_provider_new, &on_provider_destroy, &on_build_request,
    &on_parse_response,         &on_stream_new,   &on_stream_data,      &on_stream_end,
    &on_stream_destroy,
};

constexpr mgw_plugin_descriptor kDescriptor = {
    sizeof(mgw_plugin_descriptor), MGW_ABI_MAJOR, MGW_ABI_MINOR, MGW_KIND_PROVIDER, kName, kVersion, &kHooks,
};

}  // namespace
}  // namespace mgw::anthropic

extern "C" __attribute__((visibility("default"))) const mgw_plugin_descriptor* modelgw_plugin_entry(
    const mgw_host_api* host) {
  if (host == nullptr) {
    return nullptr;
  }
  if (host->abi_major != MGW_ABI_MAJOR) {
    // Another major may lay the table out differently: use its log callback
    // only when the table is at least as large as ours.
    if (host->struct_size >= sizeof(mgw_host_api)) {
      try {
        mgw::log(host, MGW_LOG_ERROR,
                 "anthropic provider: refusing to load: host ABI major " + std::to_string(host->abi_major) +
                     ", plugin built for ABI major " + std::to_string(MGW_ABI_MAJOR));
      } catch (...) {  // out of memory while logging: still refuse
      }
    }
    return nullptr;
  }
  return &mgw::anthropic::kDescriptor;
}
