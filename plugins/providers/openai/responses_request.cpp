#include "responses_request.h"

#include "request_builder.h"

#include <modelgw/provider/errors.hpp>
#include <modelgw/provider/json.hpp>
#include <modelgw/sdk.hpp>

namespace mgw::openai {

using namespace mgw::provider;

namespace {

// The members as the client wrote them, only "model" replaced: the body is
// never parsed or serialised whole. Same result as the parsing path.
std::string splice(const mgw_call_context& call) {
  const std::string model = json_quoted(view(call.upstream_model));
  std::string out;
  std::size_t total = 2 + model.size() + 10;
  for (std::size_t i = 0; i < call.member_count; ++i) {
    total += call.members[i].name.len + call.members[i].value.len + 4;
  }
  out.reserve(total);
  out += '{';
  bool model_written = false;
  for (std::size_t i = 0; i < call.member_count; ++i) {
    const std::string_view name = view(call.members[i].name);
    if (name == "model") {
      append_member(out, name, model);
      model_written = true;
    } else {
      append_member(out, name, view(call.members[i].value));
    }
  }
  if (!model_written) {
    append_member(out, "model", model);
  }
  out += '}';
  return out;
}

}  // namespace

std::optional<std::string> responses_body(const mgw_call_context& call, std::string_view client_body,
                                          const mgw_response_sink* error) {
  if (MGW_HAS_FIELD(&call, mgw_call_context, member_count) && call.members != nullptr) {
    return splice(call);
  }
  Json body = parse_json(client_body);
  if (!body.is_object()) {
    fail(error, 400, kInvalidParameter, "the request body is not a JSON object");
    return std::nullopt;
  }
  body["model"] = view(call.upstream_model);
  return dump(body);
}

}  // namespace mgw::openai
