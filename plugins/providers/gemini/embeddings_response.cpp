#include "embeddings_response.h"

#include "vector_base64.h"
#include "vendor_error.h"

#include <modelgw/provider/embeddings.hpp>
#include <modelgw/provider/json.hpp>
#include <modelgw/provider/json_scan.hpp>
#include <modelgw/provider/openai_chunk.hpp>
#include <modelgw/sdk.hpp>

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace mgw::gemini {

using namespace mgw::provider;
namespace scan = mgw::provider::json_scan;

namespace {

void bad_embeddings(const mgw_response_sink& out, int32_t status, std::string_view what) {
  emit_error(&out, provider_failed(
                       "upstream provider returned HTTP " + std::to_string(status) + " " + std::string(what),
                       /*retryable=*/true));
}

// The "values" text of each embedding, in order; nullopt and `why` otherwise.
std::optional<std::vector<std::string_view>> values_of(std::string_view embeddings, std::string& why) {
  std::vector<std::string_view> values;
  const bool array = scan::for_each_element(embeddings, [&](std::string_view item) {
    std::string_view found;
    const bool object = scan::for_each_member(item, [&found](std::string_view name, std::string_view value) {
      if (name == "values") found = value;
      return true;
    });
    if (!object) {
      why = "with an \"embeddings\" item that is not an object";
      return false;
    }
    if (!scan::is_number_array(found)) {
      why = "with an embedding whose \"values\" is not an array of numbers";
      return false;
    }
    values.push_back(found);
    return true;
  });
  if (!array) {
    if (why.empty()) why = "with an \"embeddings\" member that is not an array";
    return std::nullopt;
  }
  return values;
}

}  // namespace

void map_embeddings_response(const ErrorContext& ctx, const mgw_call_context& call, int32_t status,
                             const mgw_header* headers, std::size_t header_count, std::string_view body,
                             const mgw_response_sink& out) {
  if (status < 200 || status > 299) {
    MappedError e = map_http_error(ctx, status, headers, header_count, body);
    if (e.param == "messages") e.param = "input";  // the prompt of an embeddings call
    emit_error(&out, e);
    return;
  }
  std::string_view embeddings;
  bool error_member = false;
  const bool object = scan::for_each_member(body, [&](std::string_view name, std::string_view value) {
    if (name == "embeddings") embeddings = value;
    if (name == "error") error_member = value != "null";
    return true;
  });
  if (!object || error_member) {
    if (!scan::is_document(body)) return bad_embeddings(out, status, "with a body that is not JSON");
    const Json doc =
        parse_bounded(body);  // an error, or not an object: small, and its message is worth reading
    if (read_vendor_error(doc)) {
      std::string prefix = "upstream provider returned an error with HTTP " + std::to_string(status);
      emit_error(&out, provider_failed(with_vendor_message(std::move(prefix), doc, ctx.api_key), true));
      return;
    }
    return bad_embeddings(out, status, "with a JSON body that is not an object");
  }
  if (embeddings.empty()) {
    return bad_embeddings(out, status, "without \"embeddings\"");
  }
  std::string why;
  const auto values = values_of(embeddings, why);
  if (!values) {
    return bad_embeddings(out, status, why);
  }
  const EmbeddingsAsked asked = embeddings_asked(call);
  if (asked.inputs && *asked.inputs != values->size()) {
    return bad_embeddings(out, status,
                          "with " + std::to_string(values->size()) + " embeddings for " +
                              std::to_string(*asked.inputs) + " inputs");
  }
  // Gemini has no base64 form: convert here, the owned texts outliving the views.
  std::vector<std::string> converted;
  std::vector<std::string_view> vectors = *values;
  if (asked.base64) {
    converted.reserve(vectors.size());
    for (std::string_view& v : vectors) {
      auto b64 = float32_base64_json(v);
      if (!b64) return bad_embeddings(out, status, "with a value that is not a number");
      converted.push_back(std::move(*b64));
      v = converted.back();
    }
  }
  // Gemini reports no tokens for embeddings: the host's count stands.
  const mgw_usage usage = embeddings_usage(host_prompt_tokens(call));
  if (out.callback_usage != nullptr) {
    out.callback_usage(out.host_data, &usage);
  }
  if (out.callback_body != nullptr) {
    const std::string list =
        embeddings_list_json(vectors, json_quoted(view(call.alias)), usage.prompt_tokens);
    out.callback_body(out.host_data, str(list));
  }
}

}  // namespace mgw::gemini
