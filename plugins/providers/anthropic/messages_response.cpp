#include "messages_response.h"

#include "json_splice.h"
#include "usage.h"
#include "vendor_error.h"

#include <modelgw/provider/json.hpp>
#include <modelgw/provider/json_scan.hpp>
#include <modelgw/provider/openai_chunk.hpp>
#include <modelgw/sdk.hpp>

#include <optional>
#include <string>

namespace mgw::anthropic {

using namespace mgw::provider;

namespace {

// A 2xx Anthropic should never send. Retryable: the same call usually gets a
// proper answer. The message says what was wrong, never the bytes.
void bad_native_success(const mgw_response_sink& out, int32_t status, std::string_view what) {
  emit_error(&out, provider_failed(
                       "upstream provider returned HTTP " + std::to_string(status) + " " + std::string(what),
                       /*retryable=*/true));
}

// The parsed 2xx body, or nullopt after reporting why it cannot be one: not
// JSON, not an object, or Anthropic's error envelope.
std::optional<Json> native_success_doc(const ErrorContext& ctx, int32_t status, std::string_view body,
                                       const mgw_response_sink& out) {
  Json doc = parse_bounded(body);
  if (doc.is_discarded()) {
    bad_native_success(out, status, "with a body that is not JSON");
    return std::nullopt;
  }
  if (!doc.is_object()) {
    bad_native_success(out, status, "with a JSON body that is not an object");
    return std::nullopt;
  }
  if (string_member(doc, "type") == "error" || member(doc, "error") != nullptr) {
    const auto vendor = read_vendor_error(doc);
    const std::string prefix = "upstream provider returned an error with HTTP " + std::to_string(status);
    emit_error(&out, provider_failed(with_vendor_message(prefix, doc, ctx.api_key),
                                     is_transient(vendor ? vendor->type : std::string_view{})));
    return std::nullopt;
  }
  return doc;
}

// What the message generated, in bytes: for the estimate when usage is missing.
std::size_t message_generated_bytes(const Json& content) {
  std::size_t bytes = 0;
  for (const Json& block : content) {
    const std::string_view type = string_member(block, "type");
    if (type == "text") {
      bytes += string_member(block, "text").size();
    } else if (type == "thinking") {
      bytes += string_member(block, "thinking").size();
    } else if (type == "tool_use") {
      if (const Json* input = member(block, "input")) {
        bytes += dump(*input).size();
      }
    }
  }
  return bytes;
}

// One member of the vendor's message as it is relayed: "model" is the
// alias (`model_json`), "request_id" is left out (the host writes its
// own), any other is copied as written. Both paths below write through it.
void relay_member(std::string& out, std::string_view name, std::string_view value,
                  std::string_view model_json, bool& has_model) {
  if (name == "request_id") {
    return;
  }
  if (name == "model") {
    append_raw_member(out, name, model_json);
    has_model = true;
    return;
  }
  append_raw_member(out, name, value);
}

// The vendor's bytes with "model" = the alias, without a "request_id" (the
// host writes its own), and with `usage_json` added when not empty.
std::string relayed_message(std::string_view body, const Json& doc, std::string_view alias,
                            const std::string& usage_json) {
  const std::string model = json_quoted(alias);
  const auto members = top_level_members(body);
  if (!members) {
    // The scan trusts what the parser accepted, so this is not expected;
    // still answer with the same content.
    Json copy = doc;
    copy["model"] = alias;
    copy.erase("request_id");
    if (!usage_json.empty()) {
      copy["usage"] = Json::parse(usage_json);
    }
    return dump(copy);
  }
  std::string out;
  out.reserve(body.size() + model.size() + usage_json.size() + 16);
  out += '{';
  bool has_model = false;
  for (const RawMember& m : *members) {
    if (!(m.name == "usage" && !usage_json.empty())) {
      relay_member(out, m.name, m.value, model, has_model);
    }
  }
  if (!has_model) {
    append_raw_member(out, "model", model);
  }
  if (!usage_json.empty()) {
    append_raw_member(out, "usage", usage_json);
  }
  out += '}';
  return out;
}

// An ordinary message relayed by one validating scan, without a DOM: the
// vendor's bytes with "model" = the alias and without "request_id"
// (relay_member), as relayed_message writes them. Ordinary: keys without
// escapes, one "type" of "message", one "content" array, no "error", and
// one "usage" object with plain input and output counts
// (TokenCounts::merge_text). nullopt for anything else: the DOM path
// decides, as it did for every answer before.
// Nesting is bounded at json_scan's 128, within the DOM path's bound.
struct SplicedMessage {
  std::string body;
  TokenCounts counts;
};

std::optional<SplicedMessage> spliced_message(std::string_view body, std::string_view model_json) {
  namespace scan = json_scan;
  SplicedMessage m;
  m.body.reserve(body.size() + model_json.size() + 16);
  m.body += '{';
  std::string_view usage;
  int types = 0, contents = 0, usages = 0;
  bool has_model = false, ordinary = true;
  const bool valid = scan::for_each_member(body, [&](std::string_view name, std::string_view value) {
    if (name.find('\\') != std::string_view::npos || name == "error") return ordinary = false;
    if (name == "type") {
      if (value != "\"message\"") return ordinary = false;
      ++types;
    } else if (name == "content") {
      if (value.front() != '[') return ordinary = false;
      ++contents;
    } else if (name == "usage") {
      if (value.front() != '{') return ordinary = false;
      usage = value;
      ++usages;
    }
    relay_member(m.body, name, value, model_json, has_model);
    return true;
  });
  if (!valid || !ordinary || types != 1 || contents != 1 || usages != 1) return std::nullopt;
  if (!m.counts.merge_text(usage) || !m.counts.has_prompt() || !m.counts.has_completion())
    return std::nullopt;
  if (!has_model) append_raw_member(m.body, "model", model_json);
  m.body += '}';
  return m;
}

}  // namespace

void map_messages_response(const ErrorContext& ctx, const mgw_call_context& call, int32_t status,
                           const mgw_header* headers, std::size_t header_count, std::string_view body,
                           const mgw_response_sink& out) {
  if (status < 200 || status > 299) {
    emit_error(&out, map_http_error(ctx, status, headers, header_count, body));
    return;
  }
  if (const auto spliced = spliced_message(body, json_quoted(view(call.alias)))) {
    // Every count was given: the generated bytes are not needed for an estimate.
    const mgw_usage usage = reported_usage(spliced->counts, host_prompt_tokens(call), 0);
    if (out.callback_usage != nullptr) {
      out.callback_usage(out.host_data, &usage);
    }
    if (out.callback_body != nullptr) {
      out.callback_body(out.host_data, str(spliced->body));
    }
    return;
  }
  const std::optional<Json> doc = native_success_doc(ctx, status, body, out);
  if (!doc) {
    return;
  }
  const Json* content = member(*doc, "content");
  if (string_member(*doc, "type") != "message" || content == nullptr || !content->is_array()) {
    return bad_native_success(out, status, "with a JSON body that is not a message");
  }
  TokenCounts counts;
  const Json* vendor_usage = member(*doc, "usage");
  if (vendor_usage != nullptr) {
    counts.merge(*vendor_usage);
  }
  const mgw_usage usage = reported_usage(counts, host_prompt_tokens(call), message_generated_bytes(*content));
  // A client of the Messages API reads usage from the message: one the
  // vendor left out is filled with what the gateway counts.
  std::string added_usage;
  if (vendor_usage == nullptr || !vendor_usage->is_object()) {
    added_usage =
        dump(Json{{"input_tokens", usage.prompt_tokens}, {"output_tokens", usage.completion_tokens}});
  }
  const std::string relayed = relayed_message(body, *doc, view(call.alias), added_usage);
  if (out.callback_usage != nullptr) {
    out.callback_usage(out.host_data, &usage);
  }
  if (out.callback_body != nullptr) {
    out.callback_body(out.host_data, str(relayed));
  }
}

void map_count_tokens_response(const ErrorContext& ctx, int32_t status, const mgw_header* headers,
                               std::size_t header_count, std::string_view body,
                               const mgw_response_sink& out) {
  if (status < 200 || status > 299) {
    emit_error(&out, map_http_error(ctx, status, headers, header_count, body));
    return;
  }
  const std::optional<Json> doc = native_success_doc(ctx, status, body, out);
  if (!doc) {
    return;
  }
  const Json* tokens = member(*doc, "input_tokens");
  const std::optional<int64_t> count = tokens != nullptr ? count_value(*tokens) : std::nullopt;
  if (!count) {
    return bad_native_success(out, status, "with a JSON body that has no input_tokens count");
  }
  const std::string answer = "{\"input_tokens\":" + std::to_string(*count) + "}";
  if (out.callback_body != nullptr) {
    out.callback_body(out.host_data, str(answer));
  }
}

}  // namespace mgw::anthropic
