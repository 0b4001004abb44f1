#include "request_builder.h"

#include "responses_request.h"

#include <modelgw/provider/errors.hpp>
#include <modelgw/provider/json.hpp>
#include <modelgw/sdk.hpp>

#include <optional>
#include <string>

namespace mgw::openai {

using namespace mgw::provider;

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

// The body by splicing the host's member index (ABI 1.1): the client's
// members are copied as written, only model, stream, stream_options and
// request_id are replaced or dropped, so the body is never parsed or
// serialised whole. Same result as the parsing path below.
std::optional<std::string> splice_body(const mgw_call_context& ctx, const mgw_json_member* members,
                                       std::size_t count, const mgw_response_sink* error) {
  const bool stream = ctx.stream != 0;
  std::string out;
  std::size_t total = 2;
  for (std::size_t i = 0; i < count; ++i) {
    total += members[i].name.len + members[i].value.len + 4;
  }
  out.reserve(total + ctx.upstream_model.len + 64);
  out += '{';
  bool stream_written = false;
  bool options_written = false;
  for (std::size_t i = 0; i < count; ++i) {
    const std::string_view name = view(members[i].name);
    const std::string_view value = view(members[i].value);
    if (name == "request_id") {
      continue;  // the gateway's trace handle is not the vendor's business
    }
    if (name == "model") {
      append_member(out, name, json_quoted(view(ctx.upstream_model)));
    } else if (name == "stream") {
      if (stream) {
        append_member(out, name, "true");
        stream_written = true;
      } else if (value == "false") {
        append_member(out, name, value);
      }
    } else if (name == "stream_options") {
      if (!stream) {
        continue;
      }
      Json options = parse_json(value);
      if (options.is_null()) {
        options = Json::object();
      }
      if (!options.is_object()) {
        fail(error, 400, kInvalidParameter, "stream_options must be an object", "stream_options");
        return std::nullopt;
      }
      options["include_usage"] = true;
      append_member(out, name, dump(options));
      options_written = true;
    } else {
      append_member(out, name, value);
    }
  }
  if (stream && !stream_written) {
    append_member(out, "stream", "true");
  }
  if (stream && !options_written) {
    append_member(out, "stream_options", "{\"include_usage\":true}");
  }
  out += '}';
  return out;
}

void call(void (*fn)(void*, mgw_str), void* data, std::string_view value) {
  if (fn != nullptr) {
    fn(data, str(value));
  }
}

}  // namespace

void append_member(std::string& out, std::string_view name, std::string_view value) {
  if (out.size() > 1) {
    out += ',';
  }
  out += '"';
  out += name;
  out += "\":";
  out += value;
}

mgw_status build_request(const ProviderConfig& config, const mgw_call_context& ctx,
                         std::string_view client_body, const mgw_request_sink& out,
                         const mgw_response_sink* error) {
  std::string built;
  std::string_view path = kPath;
  const std::string_view op = operation(ctx);
  if (op == MGW_OPERATION_RESPONSES || op == MGW_OPERATION_EMBEDDINGS) {
    // Both go upstream as the client wrote them, only "model" replaced.
    auto body = responses_body(ctx, client_body, error);
    if (!body) {
      return MGW_INVALID_ARGUMENT;
    }
    built = std::move(*body);
    path = op == MGW_OPERATION_RESPONSES ? kResponsesPath : kEmbeddingsPath;
  } else if (op != MGW_OPERATION_CHAT) {
    // The host sends only the operations a provider declared.
    fail(error, 500, kInternalError, "the openai provider does not serve this operation");
    return MGW_UNSUPPORTED;
  } else if (MGW_HAS_FIELD(&ctx, mgw_call_context, member_count) && ctx.members != nullptr) {
    auto spliced = splice_body(ctx, ctx.members, ctx.member_count, error);
    if (!spliced) {
      return MGW_INVALID_ARGUMENT;
    }
    built = std::move(*spliced);
  } else {
    // An older host, or a body the host could not index: parse it. The host
    // promises a JSON object at most 64 deep with model and messages, so no
    // depth check here; a broken promise is still refused, not trusted.
    Json body = parse_json(client_body);
    if (!body.is_object()) {
      fail(error, 400, kInvalidParameter, "the request body is not a JSON object");
      return MGW_INVALID_ARGUMENT;
    }
    body["model"] = view(ctx.upstream_model);
    body.erase("request_id");  // the gateway's trace handle is not the vendor's business
    if (!apply_stream_mode(body, ctx.stream != 0, error)) {
      return MGW_INVALID_ARGUMENT;
    }
    built = dump(body);
  }

  call(out.callback_method, out.host_data, "POST");
  call(out.callback_path, out.host_data, path);
  if (out.callback_header != nullptr) {
    for (const auto& h : config.headers) {
      out.callback_header(out.host_data, str(h.name), str(h.value));
    }
    if (!config.custom_accept) {
      out.callback_header(out.host_data, str("Accept"),
                          str(ctx.stream != 0 ? "text/event-stream" : "application/json"));
    }
  }
  call(out.callback_body, out.host_data, built);
  return MGW_OK;
}

}  // namespace mgw::openai
