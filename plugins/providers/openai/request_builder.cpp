#include "request_builder.h"

#include "error_mapper.h"
#include "json_util.h"

#include <modelgw/sdk.hpp>

namespace mgw::openai {
namespace {

constexpr std::string_view kPath = "/chat/completions";

// call.stream is authoritative: the host reads the response the way it says.
// Returns false (after reporting) when the client's stream_options cannot
// take the usage request.
bool apply_stream_mode(Json& body, bool stream, const mgw_response_sink* error) {
  if (!stream) {
    // OpenAI rejects stream_options without streaming, and a stream the host
    // does not expect would arrive as SSE where it wants one JSON body.
    if (auto it = body.find("stream"); it != body.end() && *it != false) {
      body.erase(it);
    }
    body.erase("stream_options");
    return true;
  }
  body["stream"] = true;
  Json& options = body["stream_options"];
  if (options.is_null()) {
    options = Json::object();
  }
  if (!options.is_object()) {
    fail(error, 400, kInvalidParameter, "stream_options must be an object", "stream_options");
    return false;
  }
  // Without usage in the stream the gateway could only estimate the tokens.
  options["include_usage"] = true;
  return true;
}

void call(void (*fn)(void*, mgw_str), void* data, std::string_view value) {
  if (fn != nullptr) {
    fn(data, str(value));
  }
}

}  // namespace

mgw_status build_request(const ProviderConfig& config, const mgw_call_context& ctx,
                         std::string_view client_body, const mgw_request_sink& out,
                         const mgw_response_sink* error) {
  // The host promises a JSON object at most 64 deep with model and messages,
  // so no depth check here; a broken promise is still refused, not trusted.
  Json body = Json::parse(client_body.begin(), client_body.end(), nullptr, /*allow_exceptions=*/false);
  if (!body.is_object()) {
    fail(error, 400, kInvalidParameter, "the request body is not a JSON object");
    return MGW_INVALID_ARGUMENT;
  }
  body["model"] = view(ctx.upstream_model);
  body.erase("request_id");  // the gateway's trace handle is not the vendor's business
  if (!apply_stream_mode(body, ctx.stream != 0, error)) {
    return MGW_INVALID_ARGUMENT;
  }

  call(out.callback_method, out.host_data, "POST");
  call(out.callback_path, out.host_data, kPath);
  if (out.callback_header != nullptr) {
    for (const auto& h : config.headers) {
      out.callback_header(out.host_data, str(h.name), str(h.value));
    }
    if (!config.custom_accept) {
      out.callback_header(out.host_data, str("Accept"),
                          str(ctx.stream != 0 ? "text/event-stream" : "application/json"));
    }
  }
  call(out.callback_body, out.host_data, dump(body));
  return MGW_OK;
}

}  // namespace mgw::openai
