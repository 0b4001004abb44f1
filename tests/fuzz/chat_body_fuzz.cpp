// The reading of a client's POST /v1/chat/completions body: the JSON and
// chat checks (chat/chat_request.h) and, on a body they accept as an object,
// the text scans the host runs instead of re-serialising it
// (chat/body_members.h). Input: the body as sent.
//
// Checks: nothing throws; a refusal is a 400 with a code, a bounded message
// (client input is quoted as excerpts) and an envelope that is valid JSON;
// every span the scans report, and every text they build, parses to what the
// DOM parse of the same body says it should.
#include "chat/body_members.h"
#include "chat/chat_request.h"
#include "errors/api_error.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace {

using modelgw::chat::JsonPath;
using nlohmann::json;

[[noreturn]] void finding(const std::string& what) {
  std::fprintf(stderr, "FUZZ FINDING (chat body): %s\n", what.c_str());
  std::abort();
}

json parse_or_finding(std::string_view text, const std::string& what) {
  json doc = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded()) finding(what + " is not valid JSON: " + std::string(text.substr(0, 200)));
  return doc;
}

void check_refusal(const modelgw::errors::ApiError& e) {
  constexpr std::size_t kMaxMessage = 2048;  // excerpts bound what a client's bytes can add
  if (e.status != 400 || e.code.empty() || e.message.empty()) {
    finding("a refusal " + std::to_string(e.status) + " '" + e.code + "' with message '" + e.message + "'");
  }
  if (e.message.size() > kMaxMessage || e.param.size() > kMaxMessage) {
    finding("a refusal message of " + std::to_string(e.message.size()) + " bytes");
  }
  if (!json::accept(modelgw::errors::error_envelope(e, "req_fuzz")))
    finding("an error envelope that is not JSON");
}

// The value at `path` in `doc`, or nullptr.
template <typename Json>
Json* at_path(Json& doc, const JsonPath& path) {
  Json* node = &doc;
  for (const auto& step : path) {
    if (const auto* key = std::get_if<std::string>(&step)) {
      if (!node->is_object()) return nullptr;
      const auto it = node->find(*key);
      if (it == node->end()) return nullptr;
      node = &*it;
    } else {
      const std::size_t index = std::get<std::size_t>(step);
      if (!node->is_array() || index >= node->size()) return nullptr;
      node = &(*node)[index];
    }
  }
  return node;
}

void check_members(std::string_view body, const json& doc) {
  const auto members = modelgw::chat::index_members(body);
  if (!members) return;  // an escaped or repeated key: the plugin parses the body itself
  if (members->size() != doc.size()) finding("the member index and the parse disagree on the member count");
  for (const mgw_json_member& m : *members) {
    const std::string name(m.name.ptr, m.name.len);
    const auto it = doc.find(name);
    if (it == doc.end()) finding("an indexed member the parse does not have: " + name);
    const std::string_view value(m.value.ptr, m.value.len);
    if (value.data() < body.data() || value.data() + value.size() > body.data() + body.size()) {
      finding("a member value outside the body");
    }
    if (parse_or_finding(value, "the indexed value of " + name) != *it)
      finding("the indexed value of " + name);
  }

  // Dropping members splices the rest as written.
  std::vector<std::string> drop = {"stream"};
  if (!members->empty()) drop.emplace_back(members->front().name.ptr, members->front().name.len);
  json want = doc;
  for (const auto& name : drop) want.erase(name);
  if (parse_or_finding(modelgw::chat::without_members(*members, drop), "a body without members") != want) {
    finding("a body without members differs from the parse without them");
  }

  // Setting a member (the host's rewrite of "model").
  if (const auto set = modelgw::chat::with_member(body, "model", R"("fuzz-model")")) {
    json expect = doc;
    expect["model"] = "fuzz-model";
    if (parse_or_finding(*set, "a body with a member set") != expect) finding("a body with a member set");
  }
}

void check_locate(std::string_view body, const json& doc) {
  static const std::vector<JsonPath> kPaths = {
      {std::string("model")},
      {std::string("messages"), std::size_t{0}, std::string("content")},
      {std::string("messages"), std::size_t{1}, std::string("content"), std::size_t{0}, std::string("text")},
      {std::string("user")},
  };
  for (const JsonPath& path : kPaths) {
    const auto span = modelgw::chat::locate_value(body, path);
    if (!span) continue;  // absent, or behind an escaped or repeated key
    const json* want = at_path(doc, path);
    if (span->first > span->second || span->second > body.size()) finding("a located span outside the body");
    const json got =
        parse_or_finding(body.substr(span->first, span->second - span->first), "a located value");
    if (want == nullptr || got != *want) finding("a located value the parse does not have there");
    if (!want->is_string()) continue;
    const std::string with = "fuzz \"text\"\n\xC3\xA9";
    const auto replaced = modelgw::chat::replace_strings(body, {{path, with}});
    if (!replaced) finding("a located string that cannot be replaced");
    json expect = doc;
    *at_path(expect, path) = with;
    if (parse_or_finding(*replaced, "a body with a string replaced") != expect) {
      finding("a body with a string replaced differs from the parse with it replaced");
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view body(reinterpret_cast<const char*>(data), size);
  auto parsed = modelgw::util::parse_json_object(body, "model and messages");
  if (const auto* refusal = std::get_if<modelgw::errors::ApiError>(&parsed)) {
    check_refusal(*refusal);
    return 0;
  }
  const json& doc = std::get<json>(parsed);
  check_members(body, doc);
  check_locate(body, doc);
  auto request = modelgw::chat::check_chat_request(doc);
  if (const auto* refusal = std::get_if<modelgw::errors::ApiError>(&request)) {
    check_refusal(*refusal);
    return 0;
  }
  const auto& req = std::get<modelgw::chat::ChatRequest>(request);
  if (req.doc != doc || req.model != doc.at("model").get<std::string>())
    finding("the request is not the body");
  if (req.max_tokens && *req.max_tokens < 1) finding("a max_tokens below 1");
  return 0;
}
