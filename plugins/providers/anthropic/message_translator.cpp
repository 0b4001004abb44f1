#include "message_translator.h"

#include "content_translator.h"
#include "rejection.h"
#include "tool_translator.h"

#include <algorithm>

namespace mgw::anthropic {

using namespace mgw::provider;

namespace {

// Content as a list of blocks, for merging: a string is one text block (none
// when empty: Anthropic refuses empty text blocks).
Json as_blocks(Json content) {
  if (content.is_array()) {
    return content;
  }
  Json blocks = Json::array();
  if (content.is_string() && !content.get_ref<const std::string&>().empty()) {
    blocks.push_back(Json{{"type", "text"}, {"text", std::move(content)}});
  }
  return blocks;
}

bool is_tool_result(const Json& block) {
  return string_member(block, "type") == "tool_result";
}

class Builder {
 public:
  void add(std::string_view role, Json content) {
    if (!out_.messages.empty() && out_.messages.back()["role"] == role) {
      merge(out_.messages.back(), std::move(content));
      return;
    }
    out_.messages.push_back(Json{{"role", role}, {"content", std::move(content)}});
  }

  void add_system(const std::string& text) {
    if (text.empty()) {
      return;
    }
    if (!out_.system.empty()) {
      out_.system += "\n\n";
    }
    out_.system += text;
  }

  Conversation take() { return std::move(out_); }

 private:
  static void merge(Json& turn, Json content) {
    Json blocks = as_blocks(std::move(turn["content"]));
    for (auto& b : as_blocks(std::move(content))) {
      blocks.push_back(std::move(b));
    }
    if (turn["role"] == "user") {
      // A tool message after a user message (or the reverse) must still put
      // the results first; their relative order, and the text's, is kept.
      auto& list = blocks.get_ref<Json::array_t&>();
      std::stable_partition(list.begin(), list.end(), is_tool_result);
    }
    turn["content"] = std::move(blocks);
  }

  Conversation out_;
};

Json assistant_content(const Json& message, const std::string& path) {
  const Json* content = member(message, "content");
  const Json* calls = member(message, "tool_calls");
  if (calls == nullptr || (calls->is_array() && calls->empty())) {
    // No content at all, or "", says nothing: Anthropic refuses an empty turn.
    const bool empty =
        content == nullptr || (content->is_string() && content->get_ref<const std::string&>().empty());
    return empty ? Json() : message_content(*content, path);
  }
  Json blocks = content != nullptr ? as_blocks(message_content(*content, path)) : Json::array();
  for (auto& b : tool_use_blocks(*calls, path)) {
    blocks.push_back(std::move(b));
  }
  return blocks;
}

Json tool_result(const Json& message, const std::string& path) {
  const std::string_view id = string_member(message, "tool_call_id");
  if (id.empty()) {
    reject_invalid(path + ".tool_call_id", "a tool message needs a non-empty string tool_call_id");
  }
  Json block = Json{{"type", "tool_result"}, {"tool_use_id", id}};
  if (const Json* content = member(message, "content")) {
    block["content"] = tool_result_content(*content, path);
  }
  return Json::array({std::move(block)});
}

}  // namespace

Conversation translate_messages(const Json& messages) {
  if (!messages.is_array()) {
    reject_invalid("messages", "messages must be an array");
  }
  Builder b;
  for (std::size_t i = 0; i < messages.size(); ++i) {
    const Json& m = messages[i];
    const std::string path = "messages[" + std::to_string(i) + "]";
    if (!m.is_object()) {
      reject_invalid(path, "a message must be an object");
    }
    const std::string_view role = string_member(m, "role");
    const Json* content = member(m, "content");
    if (role == "system" || role == "developer") {
      if (content != nullptr) {
        b.add_system(system_text(*content, path));
      }
    } else if (role == "user") {
      if (content == nullptr) {
        reject_invalid(path + ".content", "a user message needs content");
      }
      b.add("user", message_content(*content, path));
    } else if (role == "assistant") {
      if (member(m, "function_call") != nullptr) {
        reject_invalid(path + ".function_call",
                       "the deprecated function_call is not supported; use tool_calls");
      }
      if (Json turn = assistant_content(m, path); !turn.is_null()) {
        b.add("assistant", std::move(turn));
      }
    } else if (role == "tool") {
      b.add("user", tool_result(m, path));
    } else {
      reject_invalid(path + ".role", role.empty() ? std::string("a message needs a string role")
                                                  : "role '" + std::string(role.substr(0, 64)) +
                                                        "' is not supported by the anthropic provider");
    }
  }
  return b.take();
}

}  // namespace mgw::anthropic
