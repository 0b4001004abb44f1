// Which strings of a chat request the PII step scans, and the path a client
// can act on for each ("messages[2].content[0].text", "user", "stop[1]",
// "tools[0].function.parameters.properties.card.description").
//
// The rule: every string value anywhere in the request body is text the
// upstream will see, so every one is scanned, at any depth: message contents
// and content-part texts, messages[].name, tool-call and function_call
// arguments, `user`, `stop` (a string or each element), `metadata` values, tool
// and function descriptions and every string inside their `parameters` JSON
// schemas (descriptions, enum values, defaults, examples, titles),
// `response_format` schemas, `prediction` content, and any member this list
// does not name, so a member OpenAI adds later is scanned by default. Filled
// prompt variables are in the messages: a named prompt is expanded (and its
// `prompt` member removed) before this runs.
//
// The exceptions are a fixed list of places (identifier_paths()) whose values
// are protocol identifiers, not text: values the gateway or the upstream read
// as tokens (model, role, type tags, tool-call ids, function and schema names
// that tool calls are matched by), where a mask would break the request and
// which hold no free text; and binary payloads (base64 audio and file data,
// `data:` image URLs), where a text detector finds only chance matches and
// would spend about 3 ms per MB. Object member names (keys) are not scanned:
// they are the structure of the request (a schema's property names); a path
// that must name a key holding personal data shows it as ["(personal data)"].
#pragma once

#include <nlohmann/json.hpp>

#include <cstddef>
#include <span>
#include <string>
#include <string_view>

namespace modelgw::pii {

class Detector;

namespace detail {

// One step from the root to a value: a member name or an array index. Steps
// live in the walk's stack frames, so visiting clean text builds no strings.
struct Step {
  const Step* parent = nullptr;
  const std::string* key = nullptr;  // nullptr: an array element
  std::size_t index = 0;
};

// The exception list as a tree over path steps (built once from
// identifier_paths()); nullptr stands for "no exception at or below here".
struct RuleNode;
const RuleNode* rule_root();
const RuleNode* rule_member(const RuleNode* node, std::string_view key);
const RuleNode* rule_element(const RuleNode* node);
// True when the string `value` at `node` is an identifier or binary payload.
bool rule_skips(const RuleNode* node, std::string_view value);

}  // namespace detail

// The places whose string values are not scanned, as paths ("[]" is any
// array element). A "data:" suffix note is part of the documentation only:
// those places are skipped only for values that start with "data:".
std::span<const std::string_view> identifier_paths();

struct TextRef {
  nlohmann::json* node = nullptr;  // a JSON string inside the request
  const detail::Step* step = nullptr;

  // Built only when needed (a finding). Member names that are identifiers
  // (letters, digits, '_', '-', '$'; at most 64 bytes) print as ".name", any
  // other as ["..."] (JSON-escaped, cut at 64 bytes); with `detector`, a
  // member name in which it finds personal data prints as ["(personal
  // data)"], so an error or a log line never echoes it.
  std::string path(const Detector* detector = nullptr) const;
};

namespace detail {

template <typename F>
void walk(nlohmann::json& node, const Step* step, const RuleNode* rule, F& f) {
  switch (node.type()) {
    case nlohmann::json::value_t::string:
      if (rule == nullptr || !rule_skips(rule, node.get_ref<const std::string&>())) f(TextRef{&node, step});
      return;
    case nlohmann::json::value_t::object:
      for (auto it = node.begin(); it != node.end(); ++it) {
        const Step s{step, &it.key(), 0};
        walk(it.value(), &s, rule_member(rule, it.key()), f);
      }
      return;
    case nlohmann::json::value_t::array:
      for (std::size_t i = 0; i < node.size(); ++i) {
        const Step s{step, nullptr, i};
        walk(node[i], &s, rule_element(rule), f);
      }
      return;
    default:
      return;
  }
}

}  // namespace detail

// Calls f(TextRef) for each string to scan: `messages` first, in order (so
// mask placeholders are numbered in conversation order), then every other
// member in the object's order. Recursion depth is the body's nesting, which
// the parser bounds (chat::kMaxJsonDepth).
template <typename F>
void for_each_request_text(nlohmann::json& request, F&& f) {
  if (!request.is_object()) return;
  const detail::RuleNode* root = detail::rule_root();
  auto messages = request.find("messages");
  if (messages != request.end()) {
    const detail::Step s{nullptr, &messages.key(), 0};
    detail::walk(*messages, &s, detail::rule_member(root, "messages"), f);
  }
  for (auto it = request.begin(); it != request.end(); ++it) {
    if (it == messages) continue;
    const detail::Step s{nullptr, &it.key(), 0};
    detail::walk(it.value(), &s, detail::rule_member(root, it.key()), f);
  }
}

}  // namespace modelgw::pii
