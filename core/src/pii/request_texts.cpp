#include "pii/request_texts.h"

#include "pii/detector.h"

#include <algorithm>
#include <memory>
#include <vector>

namespace modelgw::pii {
namespace {

// Where a chat request holds identifiers or binary payloads rather than text
// (see the header). Paths use "[]" for any element; a trailing " data:" marks
// a place skipped only for values that are "data:" URLs (an https image URL
// can carry an email in its query and is scanned).
// clang-format off
constexpr std::string_view kIdentifierPaths[] = {
    // What the gateway itself reads: the catalog alias and the speaker.
    "model",
    "messages[].role",
    // Tool-call plumbing: ids pair a call with its result, names match a call
    // to the tool the client declared, type tags select a union member.
    "messages[].tool_call_id",
    "messages[].tool_calls[].id",
    "messages[].tool_calls[].type",
    "messages[].tool_calls[].function.name",
    "messages[].function_call.name",
    "messages[].audio.id",
    "messages[].content[].type",
    "messages[].content[].file.file_id",
    "tools[].type",
    "tools[].function.name",
    "functions[].name",
    "tool_choice",  // "auto", "none", "required"
    "tool_choice.type",
    "tool_choice.function.name",
    "function_call",  // "auto", "none"
    "function_call.name",
    "response_format.type",
    "response_format.json_schema.name",
    // Binary payloads (base64): no text to find.
    "messages[].content[].input_audio.data",
    "messages[].content[].file.file_data",
    "messages[].content[].image_url.url data:",
    "messages[].content[].image_url data:",  // the older form: the URL as a string
    // Anthropic's Messages API (the native form of POST /v1/messages): block
    // ids and names that pair a tool_use with its tool_result, type tags,
    // cache markers, base64 sources, and the model's own signed reasoning
    // (thinking text, its signature, redacted data), which the vendor checks
    // byte for byte when it comes back: a mask there would fail the request.
    "messages[].content[].id",
    "messages[].content[].name",
    "messages[].content[].tool_use_id",
    "messages[].content[].thinking",
    "messages[].content[].signature",
    "messages[].content[].data",
    "messages[].content[].source.type",
    "messages[].content[].source.media_type",
    "messages[].content[].source.data",
    "messages[].content[].cache_control.type",
    "messages[].content[].cache_control.ttl",
    "messages[].content[].content[].type",
    "messages[].content[].content[].source.type",
    "messages[].content[].content[].source.media_type",
    "messages[].content[].content[].source.data",
    "system[].type",
    "system[].cache_control.type",
    "system[].cache_control.ttl",
    "tools[].name",
    "tools[].cache_control.type",
    "tool_choice.name",
    "thinking.type",
};
// clang-format on

}  // namespace

namespace detail {

enum class Skip : std::uint8_t { none, always, data_url };

struct RuleNode {
  std::string key;  // "[]" for array elements
  Skip skip = Skip::none;
  std::vector<std::unique_ptr<RuleNode>> children;

  RuleNode* child(std::string_view k) const {
    for (const auto& c : children) {
      if (c->key == k) return c.get();
    }
    return nullptr;
  }
};

namespace {

RuleNode* add_step(RuleNode& node, std::string_view key) {
  if (RuleNode* c = node.child(key)) return c;
  node.children.push_back(std::make_unique<RuleNode>());
  node.children.back()->key = std::string(key);
  return node.children.back().get();
}

// "messages[].tool_calls[].id" -> messages, [], tool_calls, [], id.
std::unique_ptr<RuleNode> build_rules() {
  auto root = std::make_unique<RuleNode>();
  for (std::string_view path : kIdentifierPaths) {
    Skip skip = Skip::always;
    if (const auto sp = path.find(' '); sp != std::string_view::npos) {
      skip = Skip::data_url;
      path = path.substr(0, sp);
    }
    RuleNode* node = root.get();
    std::size_t i = 0;
    while (i < path.size()) {
      const std::size_t end = path.find_first_of(".[", i);
      const std::string_view name = path.substr(i, end == std::string_view::npos ? path.npos : end - i);
      if (!name.empty()) node = add_step(*node, name);
      if (end == std::string_view::npos) break;
      if (path[end] == '[') {
        node = add_step(*node, "[]");
        i = end + 2;
        if (i < path.size() && path[i] == '.') ++i;
      } else {
        i = end + 1;
      }
    }
    node->skip = skip;
  }
  return root;
}

}  // namespace

const RuleNode* rule_root() {
  static const std::unique_ptr<RuleNode> root = build_rules();
  return root.get();
}

const RuleNode* rule_member(const RuleNode* node, std::string_view key) {
  // A member a client names "[]" is not an array element: no rule, scanned.
  return node == nullptr || key == "[]" ? nullptr : node->child(key);
}

const RuleNode* rule_element(const RuleNode* node) {
  return node == nullptr ? nullptr : node->child("[]");
}

bool rule_skips(const RuleNode* node, std::string_view value) {
  switch (node->skip) {
    case Skip::none:
      return false;
    case Skip::always:
      return true;
    case Skip::data_url:
      return value.substr(0, 5) == "data:";
  }
  return false;
}

}  // namespace detail

std::span<const std::string_view> identifier_paths() {
  return kIdentifierPaths;
}

namespace {

constexpr std::size_t kMaxKeyBytes = 64;

bool identifier_key(std::string_view k) {
  if (k.empty() || k.size() > kMaxKeyBytes) return false;
  return std::all_of(k.begin(), k.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
           c == '-' || c == '$';
  });
}

// ["..."]: JSON string escapes, bytes below 0x20 as \u00XX, cut at 64 bytes
// (at a UTF-8 character boundary) with "..." after the cut.
void append_quoted_key(std::string& out, std::string_view k) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::size_t n = std::min(k.size(), kMaxKeyBytes);
  while (n < k.size() && n > 0 && (static_cast<unsigned char>(k[n]) & 0xC0) == 0x80) --n;
  out += "[\"";
  for (char ch : k.substr(0, n)) {
    const auto c = static_cast<unsigned char>(ch);
    if (c == '"' || c == '\\') {
      out += '\\';
      out += ch;
    } else if (c < 0x20 || c == 0x7f) {
      out += "\\u00";
      out += kHex[c >> 4];
      out += kHex[c & 15];
    } else {
      out += ch;
    }
  }
  if (n < k.size()) out += "...";
  out += "\"]";
}

}  // namespace

std::string TextRef::path(const Detector* detector) const {
  std::vector<const detail::Step*> steps;
  for (const detail::Step* s = step; s != nullptr; s = s->parent) steps.push_back(s);
  std::string out;
  std::vector<Finding> found;
  for (auto it = steps.rbegin(); it != steps.rend(); ++it) {
    const detail::Step& s = **it;
    if (s.key == nullptr) {
      out += "[" + std::to_string(s.index) + "]";
      continue;
    }
    found.clear();
    if (detector != nullptr) detector->scan(*s.key, found);
    if (!found.empty()) {
      out += "[\"(personal data)\"]";
    } else if (identifier_key(*s.key)) {
      if (!out.empty()) out += '.';
      out += *s.key;
    } else {
      append_quoted_key(out, *s.key);
    }
  }
  return out;
}

}  // namespace modelgw::pii
