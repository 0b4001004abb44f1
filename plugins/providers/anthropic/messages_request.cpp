#include "messages_request.h"

#include "json_splice.h"

#include <modelgw/provider/errors.hpp>
#include <modelgw/provider/json.hpp>
#include <modelgw/sdk.hpp>

#include <array>
#include <vector>

namespace mgw::anthropic {

using namespace mgw::provider;

namespace {

constexpr std::array<std::string_view, 6> kCountedMembers = {"messages",    "system",   "tools",
                                                             "tool_choice", "thinking", "mcp_servers"};

enum class Keep { all, counted };

bool keeps(Keep keep, std::string_view name) {
  return keep == Keep::all || counted_member(name);
}

// The body from members as written, "model" replaced (or added first when
// the body has none) and, for count_tokens, the uncounted ones left out.
std::string spliced_native_body(const mgw_call_context& call, const std::vector<RawMember>& members,
                                Keep keep) {
  const std::string model = json_quoted(view(call.upstream_model));
  std::size_t total = model.size() + 16;
  for (const RawMember& m : members) {
    total += m.name.size() + m.value.size() + 4;
  }
  std::string out;
  out.reserve(total);
  out += '{';
  bool has_model = false;
  for (const RawMember& m : members) {
    has_model = has_model || m.name == "model";
  }
  if (!has_model) {
    append_raw_member(out, "model", model);
  }
  for (const RawMember& m : members) {
    if (m.name == "model") {
      append_raw_member(out, m.name, model);
    } else if (keeps(keep, m.name)) {
      append_raw_member(out, m.name, m.value);
    }
  }
  out += '}';
  return out;
}

std::optional<std::string> native_body(const mgw_call_context& call, std::string_view client_body,
                                       const mgw_response_sink* error, Keep keep) {
  if (MGW_HAS_FIELD(&call, mgw_call_context, member_count) && call.members != nullptr) {
    std::vector<RawMember> members;
    members.reserve(call.member_count);
    for (std::size_t i = 0; i < call.member_count; ++i) {
      members.push_back(RawMember{view(call.members[i].name), view(call.members[i].value)});
    }
    return spliced_native_body(call, members, keep);
  }
  // An older host, or a body the host could not index: parse it, then
  // splice the text all the same so both ways give the same bytes.
  const Json body = parse_json(client_body);
  if (!body.is_object()) {
    fail(error, 400, kInvalidParameter, "the request body is not a JSON object");
    return std::nullopt;
  }
  const auto members = top_level_members(client_body);
  if (!members) {
    fail(error, 400, kInvalidParameter, "the request body is not a JSON object");
    return std::nullopt;
  }
  return spliced_native_body(call, *members, keep);
}

}  // namespace

bool counted_member(std::string_view name) {
  for (std::string_view m : kCountedMembers) {
    if (m == name) {
      return true;
    }
  }
  return false;
}

std::optional<std::string> messages_body(const mgw_call_context& call, std::string_view client_body,
                                         const mgw_response_sink* error) {
  return native_body(call, client_body, error, Keep::all);
}

std::optional<std::string> count_tokens_body(const mgw_call_context& call, std::string_view client_body,
                                             const mgw_response_sink* error) {
  return native_body(call, client_body, error, Keep::counted);
}

}  // namespace mgw::anthropic
