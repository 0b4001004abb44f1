#include "request_builder.h"

#include "count_tokens.h"
#include "embeddings_request.h"
#include "generation_config.h"
#include "invalid_request.h"
#include "message_translator.h"

#include <modelgw/provider/errors.hpp>
#include <modelgw/provider/http.hpp>
#include <modelgw/provider/json.hpp>
#include <modelgw/sdk.hpp>

#include <utility>

namespace mgw::gemini {

using namespace mgw::provider;

namespace {

// The whole body. Fields with no Gemini counterpart (stream, stream_options,
// user, logprobs, parallel_tool_calls, request_id, …) are dropped: the core
// has already checked the catalog allows each parameter sent.
Json gemini_body(const Json& request, const mgw_call_context& call) {
  const Json* messages = member(request, "messages");
  TranslatedMessages translated = translate_messages(messages == nullptr ? Json() : *messages);

  const int64_t default_max_tokens = call.default_max_tokens;

  Json body = Json::object();
  body["contents"] = std::move(translated.contents);
  if (!translated.system_instruction.is_null()) {
    body["systemInstruction"] = std::move(translated.system_instruction);
  }
  if (Json t = tools(request); !t.is_null()) {
    body["tools"] = std::move(t);
  }
  if (Json tc = tool_config(request); !tc.is_null()) {
    body["toolConfig"] = std::move(tc);
  }
  if (Json gc = generation_config(request, default_max_tokens); !gc.is_null()) {
    body["generationConfig"] = std::move(gc);
  }
  return body;
}

void call(void (*fn)(void*, mgw_str), void* data, std::string_view value) {
  if (fn != nullptr) {
    fn(data, str(value));
  }
}

}  // namespace

std::string model_method_path(std::string_view upstream_model, std::string_view method) {
  constexpr std::string_view kResourcePrefix = "models/";
  if (upstream_model.substr(0, kResourcePrefix.size()) == kResourcePrefix) {
    upstream_model.remove_prefix(kResourcePrefix.size());
  }
  return "/models/" + percent_encode_segment(upstream_model) + ":" + std::string(method);
}

std::string request_path(std::string_view upstream_model, bool stream) {
  return model_method_path(upstream_model, stream ? "streamGenerateContent?alt=sse" : "generateContent");
}

mgw_status build_request(const ProviderConfig& config, const mgw_call_context& ctx,
                         std::string_view client_body, const mgw_request_sink& out,
                         const mgw_response_sink* error) {
  std::string body;
  std::string path;
  const std::string_view op = operation(ctx);
  if (op == MGW_OPERATION_EMBEDDINGS) {
    auto built = embeddings_body(ctx, client_body, error);
    if (!built) {
      return MGW_INVALID_ARGUMENT;
    }
    body = std::move(*built);
    path = model_method_path(view(ctx.upstream_model), "batchEmbedContents");
  } else if (op == MGW_OPERATION_COUNT_TOKENS) {
    auto built = count_tokens_body(ctx, client_body, error);
    if (!built) {
      return MGW_INVALID_ARGUMENT;
    }
    body = std::move(*built);
    path = model_method_path(view(ctx.upstream_model), "countTokens");
  } else if (op != MGW_OPERATION_CHAT) {
    // The host sends only the operations a provider declared.
    fail(error, 500, kInternalError, "the gemini provider does not serve this operation");
    return MGW_UNSUPPORTED;
  } else {
    // The host promises a JSON object at most 64 deep with model and messages,
    // so no depth check here; a broken promise is still refused, not trusted.
    const Json request =
        Json::parse(client_body.begin(), client_body.end(), nullptr, /*allow_exceptions=*/false);
    if (!request.is_object()) {
      fail(error, 400, kInvalidParameter, "the request body is not a JSON object");
      return MGW_INVALID_ARGUMENT;
    }
    try {
      body = dump(gemini_body(request, ctx));
    } catch (const InvalidRequest& e) {
      fail(error, 400, kInvalidParameter, e.message(), e.param());
      return MGW_INVALID_ARGUMENT;
    }
    path = request_path(view(ctx.upstream_model), ctx.stream != 0);
  }

  const bool stream = ctx.stream != 0;
  call(out.callback_method, out.host_data, "POST");
  call(out.callback_path, out.host_data, path);
  if (out.callback_header != nullptr) {
    for (const auto& h : config.headers) {
      out.callback_header(out.host_data, str(h.name), str(h.value));
    }
    if (!config.custom_accept) {
      out.callback_header(out.host_data, str("Accept"),
                          str(stream ? "text/event-stream" : "application/json"));
    }
  }
  call(out.callback_body, out.host_data, body);
  return MGW_OK;
}

}  // namespace mgw::gemini
