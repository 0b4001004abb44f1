// The C ABI surface: the SDK's provider helper (modelgw/provider_plugin.hpp)
// generates the entry symbol, descriptor, hook table and exception fences from
// the traits below, which only forward to the modules that translate.
#include "count_tokens.h"
#include "embeddings_response.h"
#include "error_mapper.h"
#include "parameters.h"
#include "provider_config.h"
#include "request_builder.h"
#include "response_mapper.h"
#include "stream_decoder.h"

#include <modelgw/provider/http.hpp>
#include <modelgw/provider_plugin.hpp>

namespace mgw::gemini {

struct Plugin {
  static constexpr const char* kName = "gemini";
  static constexpr const char* kVersion = "1.0.0";
  using Config = ProviderConfig;
  using Decoder = StreamDecoder;

  // ABI 1.4: what this provider does with each request parameter.
  static std::vector<mgw_param_spec> parameters(const Config& /*config*/) {
    return mgw::gemini::parameters();
  }

  // ABI 1.11: the APIs besides chat served natively (config native_operations).
  static std::vector<std::string_view> operations(const Config& config) {
    return {config.native_operations.begin(), config.native_operations.end()};
  }

  static std::optional<Config> parse_config(std::string_view json, std::string& problem) {
    return mgw::gemini::parse_config(json, problem);
  }

  // Says how requests authenticate, never with what.
  static std::string auth_note(const Config& config) {
    return config.api_key.empty()
               ? "no api_key configured, requests carry no x-goog-api-key header"
               : "requests authenticate with the configured api_key (x-goog-api-key header)";
  }

  static mgw_status build_request(const Config& config, const mgw_call_context& call,
                                  std::string_view request_json, const mgw_request_sink& out,
                                  const mgw_response_sink* error) {
    return mgw::gemini::build_request(config, call, request_json, out, error);
  }

  static void map_response(const Config& config, const mgw_host_api* host, const mgw_call_context& call,
                           int32_t http_status, const mgw_header* headers, size_t header_count,
                           std::string_view body, const mgw_response_sink& out) {
    ErrorContext ctx;
    ctx.api_key = config.api_key;
    ctx.upstream_model = view(call.upstream_model);
    if (http_status < 200 || http_status > 299) {
      // Only an error can need the clock (a Retry-After given as a date).
      ctx.now_unix_ms = provider::now_unix_ms(host);
    }
    const std::string_view op = operation(call);
    if (op == MGW_OPERATION_EMBEDDINGS) {
      mgw::gemini::map_embeddings_response(ctx, call, http_status, headers, header_count, body, out);
    } else if (op == MGW_OPERATION_COUNT_TOKENS) {
      mgw::gemini::map_count_tokens_response(ctx, call, http_status, headers, header_count, body, out);
    } else {
      mgw::gemini::map_response(ctx, call, http_status, headers, header_count, body, out);
    }
  }
};

}  // namespace mgw::gemini

MGW_PROVIDER_PLUGIN(mgw::gemini::Plugin)
