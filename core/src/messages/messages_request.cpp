#include "messages/messages_request.h"

#include "util/json_body.h"
#include "util/json_write.h"
#include "util/known_members.h"

#include <array>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

namespace modelgw::messages {
namespace {

using nlohmann::json;

// A refusal raised anywhere in the walk and answered once, at the top.
struct MessagesRefusal {
  errors::ApiError error;
};

[[noreturn]] void reject(std::string code, std::string message, std::string param) {
  throw MessagesRefusal{errors::bad_request(std::move(code), std::move(message), std::move(param))};
}

// Anthropic answers every request it will not serve with 400: a feature the
// chat chain cannot serve is one too, under the spec's unsupported_parameter.
[[noreturn]] void not_served(std::string message, std::string param) {
  reject("unsupported_parameter", std::move(message), std::move(param));
}

[[noreturn]] void missing(const std::string& param) {
  reject("missing_required_field", param + ": Field required", param);
}

const json& expect(const json& v, bool ok, const std::string& param, const char* wanted) {
  if (!ok) {
    reject("invalid_parameter", param + ": Input should be " + wanted + ", not " + util::type_name(v), param);
  }
  return v;
}
const std::string& text_at(const json& v, const std::string& param) {
  return expect(v, v.is_string(), param, "a valid string").get_ref<const std::string&>();
}
const json& object_at(const json& v, const std::string& param) {
  return expect(v, v.is_object(), param, "an object");
}
const json* member_of(const json& object, std::string_view key) {
  const auto it = object.find(key);
  return it == object.end() || it->is_null() ? nullptr : &*it;
}
// A member as member_of reads it: nullptr when absent or null.
const json* present(const json* given) {
  return given == nullptr || given->is_null() ? nullptr : given;
}
// `at`: the object's path ("" for the body itself).
const json& required_member(const json& object, const char* key, const std::string& at) {
  const json* v = member_of(object, key);
  if (v == nullptr) missing(at.empty() ? std::string(key) : at + "." + key);
  return *v;
}
std::string block_type(const json& block, const std::string& at) {
  return text_at(required_member(block, "type", at), at + ".type");
}

// The members of the request Anthropic's API knows (non-beta and beta):
// any other is refused as Anthropic refuses it.
constexpr std::array<std::string_view, 21> kMessagesMembers = {"model",
                                                               "max_tokens",
                                                               "messages",
                                                               "system",
                                                               "metadata",
                                                               "stop_sequences",
                                                               "stream",
                                                               "temperature",
                                                               "top_p",
                                                               "top_k",
                                                               "tools",
                                                               "tool_choice",
                                                               "thinking",
                                                               "service_tier",
                                                               "container",
                                                               "mcp_servers",
                                                               "context_management",
                                                               "output_config",
                                                               "output_format",
                                                               "cache_control",
                                                               "inference_geo"};
// The body's members, found by their place in kMessagesMembers.
using Given = util::KnownMembers<kMessagesMembers>;

constexpr std::array<std::string_view, 4> kImageTypes = {"image/jpeg", "image/png", "image/gif",
                                                         "image/webp"};

// An image block -> a chat image_url part.
json image_part(const json& block, const std::string& at) {
  const json& source = object_at(required_member(block, "source", at), at + ".source");
  const std::string src_at = at + ".source";
  const std::string type = block_type(source, src_at);
  if (type == "base64") {
    const std::string& media = text_at(required_member(source, "media_type", src_at), src_at + ".media_type");
    bool known = false;
    for (auto m : kImageTypes) known = known || media == m;
    if (!known) {
      reject("invalid_parameter",
             src_at + ".media_type: Input should be 'image/jpeg', 'image/png', 'image/gif' or 'image/webp'",
             src_at + ".media_type");
    }
    const std::string& data = text_at(required_member(source, "data", src_at), src_at + ".data");
    return json{{"type", "image_url"}, {"image_url", {{"url", "data:" + media + ";base64," + data}}}};
  }
  if (type == "url") {
    return json{{"type", "image_url"},
                {"image_url", {{"url", text_at(required_member(source, "url", src_at), src_at + ".url")}}}};
  }
  if (type == "file")
    not_served("images uploaded with the Files API are not served; send base64 or url", src_at);
  reject("invalid_parameter", src_at + ".type: Input should be 'base64', 'url' or 'file'", src_at + ".type");
}

void append_parts(const json& blocks, const std::string& at, json& parts);

// A document block -> chat parts (a PDF as a file part, text as a text part).
void document_parts(const json& block, const std::string& at, json& parts) {
  const json& source = object_at(required_member(block, "source", at), at + ".source");
  const std::string src_at = at + ".source";
  const std::string type = block_type(source, src_at);
  if (type == "base64") {
    const std::string& media = text_at(required_member(source, "media_type", src_at), src_at + ".media_type");
    if (media != "application/pdf")
      reject("invalid_parameter", src_at + ".media_type: Input should be 'application/pdf'",
             src_at + ".media_type");
    const std::string& data = text_at(required_member(source, "data", src_at), src_at + ".data");
    std::string filename = "document.pdf";
    if (const json* title = member_of(block, "title")) filename = text_at(*title, at + ".title");
    parts.push_back(
        json{{"type", "file"},
             {"file", {{"filename", filename}, {"file_data", "data:application/pdf;base64," + data}}}});
    return;
  }
  if (type == "text") {
    parts.push_back(
        json{{"type", "text"}, {"text", text_at(required_member(source, "data", src_at), src_at + ".data")}});
    return;
  }
  if (type == "content") {
    const json& content = required_member(source, "content", src_at);
    if (content.is_string()) {
      parts.push_back(json{{"type", "text"}, {"text", content}});
      return;
    }
    append_parts(expect(content, content.is_array(), src_at + ".content", "a valid string or list"),
                 src_at + ".content", parts);
    return;
  }
  if (type == "url" || type == "file") {
    not_served("documents by " + type + " are not served on the chat chain; send the PDF as base64",
               src_at + ".type");
  }
  reject("invalid_parameter", src_at + ".type: Input should be 'base64', 'text', 'content', 'url' or 'file'",
         src_at + ".type");
}

// A block that is content as such (text, image, document) -> chat parts.
void block_parts(const json& block, const std::string& block_at, json& parts) {
  const std::string type = block_type(block, block_at);
  if (type == "text") {
    parts.push_back(json{{"type", "text"},
                         {"text", text_at(required_member(block, "text", block_at), block_at + ".text")}});
  } else if (type == "image") {
    parts.push_back(image_part(block, block_at));
  } else if (type == "document") {
    document_parts(block, block_at, parts);
  } else {
    reject("invalid_parameter",
           block_at + ".type: '" + errors::input_excerpt(type) + "' is not a text, image or document block",
           block_at + ".type");
  }
}

void append_parts(const json& blocks, const std::string& at, json& parts) {
  for (std::size_t i = 0; i < blocks.size(); ++i) {
    const std::string block_at = at + "[" + std::to_string(i) + "]";
    block_parts(object_at(blocks[i], block_at), block_at, parts);
  }
}

// A tool_result block -> a chat tool message; images it holds go to `images`.
json tool_message(const json& block, const std::string& at, json& images) {
  const std::string& id = text_at(required_member(block, "tool_use_id", at), at + ".tool_use_id");
  std::string text;
  if (const json* content = member_of(block, "content")) {
    if (content->is_string()) {
      text = content->get_ref<const std::string&>();
    } else {
      json parts = json::array();
      append_parts(expect(*content, content->is_array(), at + ".content", "a valid string or list"),
                   at + ".content", parts);
      for (auto& part : parts) {
        if (part["type"] == "text") {
          if (!text.empty()) text += "\n";
          text += part["text"].get_ref<const std::string&>();
        } else {
          images.push_back(std::move(part));
        }
      }
    }
  }
  if (const json* error = member_of(block, "is_error")) {
    if (expect(*error, error->is_boolean(), at + ".is_error", "a valid boolean").get<bool>())
      text = "Error: " + text;
  }
  return json{{"role", "tool"}, {"tool_call_id", id}, {"content", std::move(text)}};
}

// A user turn -> its tool messages, then one user message with the rest.
void user_turn(const json& content, const std::string& at, json& messages) {
  json parts = json::array();
  json images = json::array();
  for (std::size_t i = 0; i < content.size(); ++i) {
    const std::string block_at = at + "[" + std::to_string(i) + "]";
    const json& block = object_at(content[i], block_at);
    const std::string type = block_type(block, block_at);
    if (type == "tool_result") {
      messages.push_back(tool_message(block, block_at, images));
    } else if (type == "text" || type == "image" || type == "document") {
      block_parts(block, block_at, parts);
    } else if (type == "tool_use" || type == "thinking" || type == "redacted_thinking") {
      reject("invalid_parameter", block_at + ".type: a user message cannot hold a " + type + " block",
             block_at + ".type");
    } else {
      not_served("'" + errors::input_excerpt(type) +
                     "' blocks are not served on the chat chain; send text, image, document and tool_result",
                 block_at + ".type");
    }
  }
  for (auto& image : images) parts.push_back(std::move(image));
  if (!parts.empty()) messages.push_back(json{{"role", "user"}, {"content", std::move(parts)}});
}

// An assistant turn -> one chat assistant message (text and tool calls).
void assistant_turn(const json& content, const std::string& at, json& messages) {
  std::string text;
  json calls = json::array();
  for (std::size_t i = 0; i < content.size(); ++i) {
    const std::string block_at = at + "[" + std::to_string(i) + "]";
    const json& block = object_at(content[i], block_at);
    const std::string type = block_type(block, block_at);
    if (type == "text") {
      text += text_at(required_member(block, "text", block_at), block_at + ".text");
    } else if (type == "tool_use") {
      const std::string& id = text_at(required_member(block, "id", block_at), block_at + ".id");
      const std::string& name = text_at(required_member(block, "name", block_at), block_at + ".name");
      const json& input = object_at(required_member(block, "input", block_at), block_at + ".input");
      calls.push_back(json{{"id", id},
                           {"type", "function"},
                           {"function", {{"name", name}, {"arguments", util::json_text(input)}}}});
    } else if (type == "thinking" || type == "redacted_thinking") {
      // Only the vendor that wrote it can read it back (its signature).
    } else if (type == "image" || type == "document" || type == "tool_result") {
      reject("invalid_parameter", block_at + ".type: an assistant message cannot hold a " + type + " block",
             block_at + ".type");
    } else {
      not_served("'" + errors::input_excerpt(type) +
                     "' blocks are not served on the chat chain; an assistant message holds text, tool_use "
                     "and thinking",
                 block_at + ".type");
    }
  }
  json m{{"role", "assistant"}, {"content", calls.empty() || !text.empty() ? json(text) : json(nullptr)}};
  if (!calls.empty()) m["tool_calls"] = std::move(calls);
  messages.push_back(std::move(m));
}

void add_messages(const json& list, json& messages) {
  expect(list, list.is_array(), "messages", "a valid list");
  if (list.empty()) reject("invalid_parameter", "messages: List should have at least 1 item", "messages");
  for (std::size_t i = 0; i < list.size(); ++i) {
    const std::string at = "messages[" + std::to_string(i) + "]";
    const json& m = object_at(list[i], at);
    for (const auto& [key, value] : m.items()) {
      if (key != "role" && key != "content")
        reject("unknown_parameter",
               at + "." + errors::input_excerpt(key) + ": Extra inputs are not permitted",
               at + "." + errors::input_excerpt(key));
    }
    const std::string& role = text_at(required_member(m, "role", at), at + ".role");
    if (role != "user" && role != "assistant")
      reject("invalid_parameter", at + ".role: Input should be 'user' or 'assistant'", at + ".role");
    const json& content = required_member(m, "content", at);
    const std::string content_at = at + ".content";
    if (content.is_string()) {
      messages.push_back(json{{"role", role}, {"content", content}});
      continue;
    }
    expect(content, content.is_array(), content_at, "a valid string or list");
    if (content.empty())
      reject("invalid_parameter", content_at + ": List should have at least 1 item", content_at);
    if (role == "user") {
      user_turn(content, content_at, messages);
    } else {
      assistant_turn(content, content_at, messages);
    }
  }
}

std::string system_text(const json& system) {
  if (system.is_string()) return system.get<std::string>();
  expect(system, system.is_array(), "system", "a valid string or list");
  std::string text;
  for (std::size_t i = 0; i < system.size(); ++i) {
    const std::string at = "system[" + std::to_string(i) + "]";
    const json& block = object_at(system[i], at);
    if (block_type(block, at) != "text")
      reject("invalid_parameter", at + ".type: Input should be 'text'", at + ".type");
    if (i > 0) text += "\n";
    text += text_at(required_member(block, "text", at), at + ".text");
  }
  return text;
}

// `native`: Anthropic's own tools go to the vendor in the native body; the
// chat form (for a fallback to another vendor) leaves them out.
json chat_tools_of(const json& tools, bool native) {
  expect(tools, tools.is_array(), "tools", "a valid list");
  json out = json::array();
  for (std::size_t i = 0; i < tools.size(); ++i) {
    const std::string at = "tools[" + std::to_string(i) + "]";
    const json& tool = object_at(tools[i], at);
    if (const json* type = member_of(tool, "type")) {
      const std::string& t = text_at(*type, at + ".type");
      if (t != "custom") {
        if (native) continue;
        not_served("tool type '" + errors::input_excerpt(t) +
                       "' is one of Anthropic's own tools, which the chat chain cannot run; declare a custom "
                       "tool with name and input_schema",
                   at);
      }
    }
    json function{{"name", text_at(required_member(tool, "name", at), at + ".name")}};
    if (const json* d = member_of(tool, "description"))
      function["description"] = text_at(*d, at + ".description");
    function["parameters"] = object_at(required_member(tool, "input_schema", at), at + ".input_schema");
    out.push_back(json{{"type", "function"}, {"function", std::move(function)}});
  }
  return out;
}

void apply_tool_choice(const json& choice, json& chat) {
  object_at(choice, "tool_choice");
  const std::string type = block_type(choice, "tool_choice");
  if (type == "auto") {
    chat["tool_choice"] = "auto";
  } else if (type == "any") {
    chat["tool_choice"] = "required";
  } else if (type == "none") {
    chat["tool_choice"] = "none";
  } else if (type == "tool") {
    chat["tool_choice"] =
        json{{"type", "function"},
             {"function",
              {{"name", text_at(required_member(choice, "name", "tool_choice"), "tool_choice.name")}}}};
  } else {
    reject("invalid_parameter", "tool_choice.type: Input should be 'auto', 'any', 'tool' or 'none'",
           "tool_choice.type");
  }
  if (const json* d = member_of(choice, "disable_parallel_tool_use")) {
    if (expect(*d, d->is_boolean(), "tool_choice.disable_parallel_tool_use", "a valid boolean").get<bool>() &&
        chat.contains("tools"))
      chat["parallel_tool_calls"] = false;
  }
}

// A number in [lo, hi], as Anthropic bounds its sampling parameters.
void bounded_number(const json* v, const char* key, double lo, double hi, json& chat) {
  if (v == nullptr) return;
  expect(*v, v->is_number(), key, "a valid number");
  const double d = v->get<double>();
  if (d < lo || d > hi) {
    reject("invalid_parameter",
           std::string(key) + ": Input should be between " + std::to_string(static_cast<int>(lo)) + " and " +
               std::to_string(static_cast<int>(hi)),
           key);
  }
  chat[key] = *v;
}

constexpr auto kMaxCount = std::numeric_limits<std::int64_t>::max();

std::optional<std::int64_t> positive_count(const json& v) {
  if (v.is_number_unsigned()) {
    const auto u = v.get<std::uint64_t>();
    if (u >= 1 && u <= static_cast<std::uint64_t>(kMaxCount)) return static_cast<std::int64_t>(u);
    return std::nullopt;
  }
  if (v.is_number_integer() && v.get<std::int64_t>() >= 1) return v.get<std::int64_t>();
  return std::nullopt;
}

void apply_thinking(const json& thinking, const std::optional<std::int64_t>& max_tokens, json& chat) {
  object_at(thinking, "thinking");
  const std::string type = block_type(thinking, "thinking");
  if (type == "disabled") return;
  if (type == "adaptive") {
    chat["reasoning_effort"] = "medium";
    return;
  }
  if (type != "enabled")
    reject("invalid_parameter", "thinking.type: Input should be 'enabled', 'disabled' or 'adaptive'",
           "thinking.type");
  const json& budget = required_member(thinking, "budget_tokens", "thinking");
  if (!budget.is_number_integer() || budget.get<std::int64_t>() < 1024)
    reject("invalid_parameter", "thinking.budget_tokens: Input should be an integer of at least 1024",
           "thinking.budget_tokens");
  // (A count past int64's range reads as negative above, and is refused.)
  const auto tokens = budget.get<std::int64_t>();
  if (max_tokens && tokens >= *max_tokens)
    reject("invalid_parameter", "max_tokens must be greater than thinking.budget_tokens", "max_tokens");
  chat["reasoning_effort"] = std::string(effort_for_budget(tokens));
}

// output_config ({effort, format}) and the beta output_format: the answer's
// effort and its JSON schema.
void apply_output_config(const Given& given, json& chat) {
  const json* format = nullptr;
  std::string format_at;
  if (const json* config = present(given["output_config"])) {
    object_at(*config, "output_config");
    if (const json* effort = member_of(*config, "effort")) {
      const std::string& e = text_at(*effort, "output_config.effort");
      if (e != "low" && e != "medium" && e != "high")
        reject("invalid_parameter", "output_config.effort: Input should be 'low', 'medium' or 'high'",
               "output_config.effort");
      chat["reasoning_effort"] = e;
    }
    if ((format = member_of(*config, "format")) != nullptr) format_at = "output_config.format";
  }
  if (const json* beta = present(given["output_format"])) {
    format = beta;
    format_at = "output_format";
  }
  if (format == nullptr) return;
  object_at(*format, format_at);
  if (block_type(*format, format_at) != "json_schema")
    reject("invalid_parameter", format_at + ".type: Input should be 'json_schema'", format_at + ".type");
  chat["response_format"] =
      json{{"type", "json_schema"},
           {"json_schema",
            {{"name", "output"},
             {"schema", object_at(required_member(*format, "schema", format_at), format_at + ".schema")}}}};
}

TranslatedMessages translate(const json& body, MessagesOptions options) {
  const Given given(body);
  if (const std::string* name = given.unknown()) {
    reject("unknown_parameter", errors::input_excerpt(*name) + ": Extra inputs are not permitted",
           errors::input_excerpt(*name));
  }
  TranslatedMessages out;
  json& chat = out.chat;
  chat = json::object();
  const json* model = present(given["model"]);
  if (model == nullptr) missing("model");
  out.alias = text_at(*model, "model");
  chat["model"] = out.alias;

  std::optional<std::int64_t> max_tokens;
  if (const json* v = present(given["max_tokens"])) {
    max_tokens = positive_count(*v);
    if (!max_tokens)
      reject("invalid_parameter", "max_tokens: Input should be an integer of at least 1", "max_tokens");
    chat["max_tokens"] = *max_tokens;
  } else if (!options.counting) {
    missing("max_tokens");
  }

  json messages = json::array();
  if (const json* system = present(given["system"])) {
    std::string text = system_text(*system);
    if (!text.empty()) messages.push_back(json{{"role", "system"}, {"content", std::move(text)}});
  }
  const json* list = present(given["messages"]);
  if (list == nullptr) missing("messages");
  add_messages(*list, messages);
  chat["messages"] = std::move(messages);

  if (const json* v = present(given["stream"])) {
    out.stream = expect(*v, v->is_boolean(), "stream", "a valid boolean").get<bool>();
    if (out.stream) {
      chat["stream"] = true;
      chat["stream_options"] = json{{"include_usage", true}};
    }
  }
  if (const json* v = present(given["tools"])) {
    json tools = chat_tools_of(*v, options.native);
    if (!tools.empty()) chat["tools"] = std::move(tools);
  }
  if (const json* v = present(given["tool_choice"])) apply_tool_choice(*v, chat);
  bounded_number(present(given["temperature"]), "temperature", 0, 1, chat);
  bounded_number(present(given["top_p"]), "top_p", 0, 1, chat);
  if (const json* v = present(given["top_k"])) {
    if (!v->is_number_integer() || (!v->is_number_unsigned() && v->get<std::int64_t>() < 0))
      reject("invalid_parameter", "top_k: Input should be an integer of at least 0", "top_k");
    // Checked, and sent on natively; the chat form has no top_k (no chat
    // vendor's parameter table takes it), so the translation leaves it out
    // rather than refuse a hint Claude clients send by default.
  }
  if (const json* v = present(given["stop_sequences"])) {
    expect(*v, v->is_array(), "stop_sequences", "a valid list");
    for (std::size_t i = 0; i < v->size(); ++i) text_at((*v)[i], "stop_sequences[" + std::to_string(i) + "]");
    if (!v->empty()) chat["stop"] = *v;
  }
  if (const json* v = present(given["metadata"])) {
    object_at(*v, "metadata");
    for (const auto& [key, value] : v->items()) {
      if (key != "user_id")
        reject("unknown_parameter",
               "metadata." + errors::input_excerpt(key) + ": Extra inputs are not permitted",
               "metadata." + errors::input_excerpt(key));
    }
    if (const json* user = member_of(*v, "user_id")) chat["user"] = text_at(*user, "metadata.user_id");
  }
  if (const json* v = present(given["thinking"])) apply_thinking(*v, max_tokens, chat);
  apply_output_config(given, chat);
  if (const json* v = present(given["service_tier"])) {
    const std::string& tier = text_at(*v, "service_tier");
    if (tier != "auto" && tier != "standard_only")
      reject("invalid_parameter", "service_tier: Input should be 'auto' or 'standard_only'", "service_tier");
  }
  if (const json* v = present(given["inference_geo"])) text_at(*v, "inference_geo");
  if (const json* v = present(given["cache_control"])) object_at(*v, "cache_control");
  for (const auto& [key, v] : {std::pair{"container", present(given["container"])},
                               std::pair{"mcp_servers", present(given["mcp_servers"])},
                               std::pair{"context_management", present(given["context_management"])}}) {
    if (v != nullptr && !options.native)
      not_served(std::string(key) + " needs Anthropic's own servers, which the chat chain cannot reach", key);
  }
  return out;
}

}  // namespace

std::string_view effort_for_budget(std::int64_t budget_tokens) {
  if (budget_tokens < 4096) return "low";
  if (budget_tokens < 16384) return "medium";
  return "high";
}

std::variant<TranslatedMessages, errors::ApiError> translate_messages(const nlohmann::json& body,
                                                                      MessagesOptions options) {
  if (!body.is_object())
    return errors::bad_request("invalid_parameter", "the body must be a JSON object", "");
  try {
    return translate(body, options);
  } catch (MessagesRefusal& r) {
    return std::move(r.error);
  }
}

}  // namespace modelgw::messages
