#include "embeddings_request.h"

#include <modelgw/provider/errors.hpp>
#include <modelgw/provider/json.hpp>
#include <modelgw/provider/json_scan.hpp>
#include <modelgw/sdk.hpp>

#include <vector>

namespace mgw::gemini {

using namespace mgw::provider;
namespace scan = mgw::provider::json_scan;

namespace {

constexpr std::string_view kTextOnly =
    "Gemini embeds text only: each input must be a string, not an array of token ids";

// The two members the body needs, as JSON text (views into the client's body).
struct EmbedAsk {
  std::string_view input;
  std::string_view dimensions;  // empty when not sent (or null)
};

EmbedAsk members_of(const mgw_call_context& call) {
  EmbedAsk ask;
  for (std::size_t i = 0; i < call.member_count; ++i) {
    const std::string_view name = view(call.members[i].name);
    const std::string_view value = view(call.members[i].value);
    if (name == "input") {
      ask.input = value;
    } else if (name == "dimensions" && value != "null") {
      ask.dimensions = value;
    }
  }
  return ask;
}

// Each input's JSON string text, or a refusal through `error`.
std::optional<std::vector<std::string_view>> input_texts(std::string_view input,
                                                         const mgw_response_sink* error) {
  std::vector<std::string_view> texts;
  if (!input.empty() && input.front() == '"') {
    texts.push_back(input);  // the host promises an array; a lone string is still one input
    return texts;
  }
  bool token_array = false;
  const bool array = scan::for_each_element(input, [&](std::string_view item) {
    if (item.front() != '"') {
      token_array = item.front() == '[';
      return false;
    }
    texts.push_back(item);
    return true;
  });
  if (!array) {
    fail(error, 400, kInvalidParameter,
         token_array ? std::string(kTextOnly) : std::string("input must be a string or an array of strings"),
         "input");
    return std::nullopt;
  }
  if (texts.empty()) {
    fail(error, 400, kInvalidParameter, "input must not be empty", "input");
    return std::nullopt;
  }
  return texts;
}

}  // namespace

std::string model_resource_json(std::string_view upstream_model) {
  constexpr std::string_view kResourcePrefix = "models/";
  if (upstream_model.substr(0, kResourcePrefix.size()) == kResourcePrefix) {
    upstream_model.remove_prefix(kResourcePrefix.size());
  }
  return dump(Json("models/" + std::string(upstream_model)));
}

std::optional<std::string> embeddings_body(const mgw_call_context& call, std::string_view client_body,
                                           const mgw_response_sink* error) {
  EmbedAsk ask;
  Json parsed;  // owns the texts when the body had to be parsed
  std::string input_text;
  std::string dimensions_text;
  if (MGW_HAS_FIELD(&call, mgw_call_context, member_count) && call.members != nullptr) {
    ask = members_of(call);
  } else {
    parsed = parse_json(client_body);
    if (!parsed.is_object()) {
      fail(error, 400, kInvalidParameter, "the request body is not a JSON object");
      return std::nullopt;
    }
    if (const Json* in = member(parsed, "input")) {
      input_text = dump(*in);
      ask.input = input_text;
    }
    if (const Json* d = member(parsed, "dimensions")) {
      dimensions_text = dump(*d);
      ask.dimensions = dimensions_text;
    }
  }
  const auto texts = input_texts(ask.input, error);
  if (!texts) {
    return std::nullopt;
  }
  if (const auto d = scan::count_value(ask.dimensions); !ask.dimensions.empty() && (!d || *d == 0)) {
    fail(error, 400, kInvalidParameter, "dimensions must be a positive integer", "dimensions");
    return std::nullopt;
  }
  const std::string model = model_resource_json(view(call.upstream_model));
  std::string head = R"({"model":)" + model + R"(,"content":{"parts":[{"text":)";
  std::string tail = "}]}";
  if (!ask.dimensions.empty()) {
    tail += R"(,"outputDimensionality":)";
    tail += ask.dimensions;
  }
  tail += '}';
  std::size_t total = 16;
  for (const std::string_view t : *texts) total += head.size() + t.size() + tail.size() + 1;
  std::string out;
  out.reserve(total);
  out += R"({"requests":[)";
  for (std::size_t i = 0; i < texts->size(); ++i) {
    if (i > 0) out += ',';
    out += head;
    out += (*texts)[i];
    out += tail;
  }
  out += "]}";
  return out;
}

}  // namespace mgw::gemini
