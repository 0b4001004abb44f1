// Optional C++ helper: the whole C ABI surface of a provider plugin (entry
// symbol, descriptor, hook table, handle lifetimes, argument checks, and an
// exception fence around every hook), generated from a traits type that only
// translates. A plugin written with it is the traits and one macro:
//
//   struct MyVendor {
//     static constexpr const char* kName = "myvendor";
//     static constexpr const char* kVersion = "1.0.0";
//     using Config = MyConfig;    // read-only after creation; shared across threads
//     using Decoder = MyDecoder;  // one streamed response
//     // nullopt and `problem` set when the block is invalid (never quote secrets).
//     static std::optional<Config> parse_config(std::string_view json, std::string& problem);
//     // One log line saying how requests authenticate, never with what.
//     static std::string auth_note(const Config& config);
//     // on_build_request, minus the checks and the fence.
//     static mgw_status build_request(const Config&, const mgw_call_context&, std::string_view request_json,
//                                     const mgw_request_sink& out, const mgw_response_sink* error);
//     // on_parse_response, minus the checks and the fence.
//     static void map_response(const Config&, const mgw_host_api* host, const mgw_call_context&,
//                              int32_t http_status, const mgw_header* headers, size_t header_count,
//                              std::string_view body, const mgw_response_sink& out);
//   };
//   // Decoder(const Config&, const mgw_call_context&); void feed(std::string_view, const
//   mgw_response_sink&);
//   // void end(const mgw_response_sink&); void fail_internal(const mgw_response_sink&) noexcept;
//
// Optional (ABI 1.4): the request parameters the provider takes, which the
// host checks before it builds a request (plugin.h, mgw_param_spec):
//     static std::vector<mgw_param_spec> parameters(const Config&);
// Without it the table has no on_provider_parameters hook and the host takes
// the catalog's word for what each model supports.
//
// Optional (ABI 1.10): the operations besides chat the provider serves
// natively (plugin.h, "Native operations"), e.g. MGW_OPERATION_RESPONSES:
//     static std::vector<std::string_view> operations(const Config&);
// Without it the table has no on_provider_operations hook and the host
// translates every API to chat for this provider. With it, build_request,
// map_response and the Decoder read mgw::operation(call) to know which API a
// call is in.
//
//   MGW_PROVIDER_PLUGIN(MyVendor)
//
// Any exception a traits function throws is caught here: it is logged by hook
// name only (an exception's text may quote request bytes), the response sink
// gets a retryable 500 internal_error, and the hook returns MGW_INTERNAL.
#pragma once

#include <modelgw/plugin.h>
#include <modelgw/sdk.hpp>

#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

namespace mgw {

// True when Traits declares parameters(const Config&) (C++17 detection).
template <typename Traits, typename = void>
struct declares_parameters : std::false_type {};
template <typename Traits>
struct declares_parameters<
    Traits, std::void_t<decltype(Traits::parameters(std::declval<const typename Traits::Config&>()))>>
    : std::true_type {};

// True when Traits declares operations(const Config&).
template <typename Traits, typename = void>
struct declares_operations : std::false_type {};
template <typename Traits>
struct declares_operations<
    Traits, std::void_t<decltype(Traits::operations(std::declval<const typename Traits::Config&>()))>>
    : std::true_type {};

// A parameter row for Traits::parameters. `name` and `target` must be static
// strings (string literals).
inline mgw_param_spec mapped_param(const char* name, const char* target, double min = 1, double max = 0) {
  return mgw_param_spec{sizeof(mgw_param_spec), MGW_PARAM_MAPPED, name, target, min, max};
}
inline mgw_param_spec dropped_param(const char* name) {
  return mgw_param_spec{sizeof(mgw_param_spec), MGW_PARAM_DROPPED, name, "", 1, 0};
}
inline mgw_param_spec refused_param(const char* name) {
  return mgw_param_spec{sizeof(mgw_param_spec), MGW_PARAM_REFUSED, name, "", 1, 0};
}

template <typename Traits>
class ProviderPlugin {
 public:
  // The body of the exported entry symbol (see MGW_PROVIDER_PLUGIN).
  static const mgw_plugin_descriptor* entry(const mgw_host_api* host) noexcept {
    try {
      return host_abi_supported(host, prefix()) ? &kDescriptor : nullptr;
    } catch (...) {  // out of memory building the prefix
      return nullptr;
    }
  }

 private:
  using Config = typename Traits::Config;
  using Decoder = typename Traits::Decoder;

  // What the opaque handles of plugin.h point at. The host never looks inside.
  struct Provider {
    Config config;
    const mgw_host_api* host = nullptr;  // valid until the plugin is unloaded
  };
  struct Stream {
    const Provider* provider = nullptr;
    Decoder decoder;
  };
  static Provider* of(mgw_provider* p) { return reinterpret_cast<Provider*>(p); }
  static Stream* of(mgw_provider_stream* s) { return reinterpret_cast<Stream*>(s); }

  static std::string prefix() { return std::string(Traits::kName) + " provider: "; }

  static void log_exception(const mgw_host_api* host, std::string_view hook) noexcept {
    try {
      log(host, MGW_LOG_ERROR, prefix() + "unexpected failure in " + std::string(hook));
    } catch (...) {  // out of memory while logging: nothing more to do
    }
  }

  // Retryable, as spec 7.2 says of a 500: the failure (e.g. out of memory) is
  // not a property of the request.
  static void fail_internal(const mgw_response_sink* out) noexcept {
    try {
      fail(out, 500, "internal_error",
           "the " + std::string(Traits::kName) + " provider plugin failed unexpectedly", {},
           /*retryable=*/true);
    } catch (...) {
      fail(out, 500, "internal_error", "a provider plugin failed unexpectedly", {}, /*retryable=*/true);
    }
  }

  static mgw_status on_provider_new(const mgw_host_api* host, mgw_str config_json, mgw_provider** out,
                                    const mgw_text_sink* error) noexcept {
    if (out == nullptr) return MGW_INVALID_ARGUMENT;
    *out = nullptr;
    try {
      std::string problem;
      std::optional<Config> config = Traits::parse_config(view(config_json), problem);
      if (!config) {
        say(error, problem);
        return MGW_INVALID_ARGUMENT;
      }
      log(host, MGW_LOG_INFO, prefix() + Traits::auth_note(*config));
      *out = reinterpret_cast<mgw_provider*>(new Provider{std::move(*config), host});
      return MGW_OK;
    } catch (...) {
      log_exception(host, "on_provider_new");
      try {
        say(error, "the " + std::string(Traits::kName) +
                       " provider plugin failed unexpectedly while reading its configuration");
      } catch (...) {
        say(error, "the provider plugin failed unexpectedly while reading its configuration");
      }
      return MGW_INTERNAL;
    }
  }

  static void on_provider_destroy(mgw_provider* provider) noexcept { delete of(provider); }

  static mgw_status on_build_request(mgw_provider* provider, const mgw_call_context* call,
                                     mgw_str request_json, const mgw_request_sink* out,
                                     const mgw_response_sink* error) noexcept {
    if (provider == nullptr || call == nullptr || out == nullptr) return MGW_INVALID_ARGUMENT;
    try {
      return Traits::build_request(of(provider)->config, *call, view(request_json), *out, error);
    } catch (...) {
      log_exception(of(provider)->host, "on_build_request");
      fail_internal(error);
      return MGW_INTERNAL;
    }
  }

  // A vendor failure is a translation like any other: it goes to callback_error
  // and the hook returns MGW_OK. MGW_INTERNAL means the plugin itself failed.
  static mgw_status on_parse_response(mgw_provider* provider, const mgw_call_context* call,
                                      int32_t http_status, const mgw_header* headers, size_t header_count,
                                      mgw_str body, const mgw_response_sink* out) noexcept {
    if (provider == nullptr || call == nullptr || out == nullptr) return MGW_INVALID_ARGUMENT;
    try {
      Traits::map_response(of(provider)->config, of(provider)->host, *call, http_status, headers,
                           header_count, view(body), *out);
      return MGW_OK;
    } catch (...) {
      log_exception(of(provider)->host, "on_parse_response");
      fail_internal(out);
      return MGW_INTERNAL;
    }
  }

  static mgw_status on_stream_new(mgw_provider* provider, const mgw_call_context* call,
                                  mgw_provider_stream** out) noexcept {
    if (out == nullptr) return MGW_INVALID_ARGUMENT;
    *out = nullptr;
    if (provider == nullptr || call == nullptr) return MGW_INVALID_ARGUMENT;
    try {
      *out = reinterpret_cast<mgw_provider_stream*>(
          new Stream{of(provider), Decoder(of(provider)->config, *call)});
      return MGW_OK;
    } catch (...) {
      log_exception(of(provider)->host, "on_stream_new");
      return MGW_INTERNAL;
    }
  }

  static mgw_status on_stream_data(mgw_provider_stream* stream, mgw_str bytes,
                                   const mgw_response_sink* out) noexcept {
    if (stream == nullptr || out == nullptr) return MGW_INVALID_ARGUMENT;
    try {
      of(stream)->decoder.feed(view(bytes), *out);
      return MGW_OK;
    } catch (...) {
      log_exception(of(stream)->provider->host, "on_stream_data");
      of(stream)->decoder.fail_internal(*out);
      return MGW_INTERNAL;
    }
  }

  static mgw_status on_stream_end(mgw_provider_stream* stream, const mgw_response_sink* out) noexcept {
    if (stream == nullptr || out == nullptr) return MGW_INVALID_ARGUMENT;
    try {
      of(stream)->decoder.end(*out);
      return MGW_OK;
    } catch (...) {
      log_exception(of(stream)->provider->host, "on_stream_end");
      of(stream)->decoder.fail_internal(*out);
      return MGW_INTERNAL;
    }
  }

  static void on_stream_destroy(mgw_provider_stream* stream) noexcept { delete of(stream); }

  static mgw_status on_provider_parameters(mgw_provider* provider, const mgw_param_sink* out) noexcept {
    if (provider == nullptr || out == nullptr || out->callback_parameter == nullptr)
      return MGW_INVALID_ARGUMENT;
    if constexpr (declares_parameters<Traits>::value) {
      try {
        for (const mgw_param_spec& p : Traits::parameters(of(provider)->config)) {
          out->callback_parameter(out->host_data, &p);
        }
        return MGW_OK;
      } catch (...) {
        log_exception(of(provider)->host, "on_provider_parameters");
        return MGW_INTERNAL;
      }
    }
    return MGW_UNSUPPORTED;
  }

  static mgw_status on_provider_operations(mgw_provider* provider, const mgw_text_sink* out) noexcept {
    if (provider == nullptr || out == nullptr || out->callback_text == nullptr) return MGW_INVALID_ARGUMENT;
    if constexpr (declares_operations<Traits>::value) {
      try {
        for (std::string_view op : Traits::operations(of(provider)->config)) {
          out->callback_text(out->host_data, mgw::str(op));
        }
        return MGW_OK;
      } catch (...) {
        log_exception(of(provider)->host, "on_provider_operations");
        return MGW_INTERNAL;
      }
    }
    return MGW_UNSUPPORTED;
  }

  static constexpr mgw_provider_hooks kHooks = {
      sizeof(mgw_provider_hooks),
      &on_provider_new,
      &on_provider_destroy,
      &on_build_request,
      &on_parse_response,
      &on_stream_new,
      &on_stream_data,
      &on_stream_end,
      &on_stream_destroy,
      declares_parameters<Traits>::value ? &on_provider_parameters : nullptr,
      declares_operations<Traits>::value ? &on_provider_operations : nullptr,
  };

  static constexpr mgw_plugin_descriptor kDescriptor = {
      sizeof(mgw_plugin_descriptor),
      MGW_ABI_MAJOR,
      MGW_ABI_MINOR,
      MGW_KIND_PROVIDER,
      Traits::kName,
      Traits::kVersion,
      &kHooks,
  };
};

}  // namespace mgw

// Exports the entry symbol for the provider described by `Traits` (one per
// shared object).
#define MGW_PROVIDER_PLUGIN(Traits)                                                                    \
  extern "C" __attribute__((visibility("default"))) const mgw_plugin_descriptor* modelgw_plugin_entry( \
      const mgw_host_api* host) {                                                                      \
    return ::mgw::ProviderPlugin<Traits>::entry(host);                                                 \
  }
