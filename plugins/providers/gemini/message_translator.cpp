#include "message_translator.h"

#include "invalid_request.h"

#include <modelgw/provider/ascii.hpp>
#include <modelgw/provider/secret_mask.hpp>

#include <array>
#include <string>
#include <unordered_map>
#include <utility>

namespace mgw::gemini {

using namespace mgw::provider;

namespace {

using Path = std::string;

Path message_path(std::size_t i) {
  return "messages[" + std::to_string(i) + "]";
}

Path index_path(const Path& base, std::string_view member, std::size_t j) {
  return base + "." + std::string(member) + "[" + std::to_string(j) + "]";
}

// A short piece of the client's own input for an error message: enough to
// recognise, cut on a UTF-8 boundary so the message stays valid.
std::string quoted(std::string_view s) {
  constexpr std::size_t kQuoteLimit = 64;
  return "'" + std::string(utf8_prefix(s, kQuoteLimit)) + "'";
}

Json text_part(std::string_view text) {
  return Json{{"text", text}};
}

// Gemini needs a media type; an http(s) URL has none, so the extension is the
// best hint, and JPEG (the commonest photo format) the fallback.
std::string guess_image_type(std::string_view url) {
  url = url.substr(0, url.find_first_of("?#"));
  const auto slash = url.rfind('/');
  const auto dot = url.rfind('.');
  if (dot == std::string_view::npos || (slash != std::string_view::npos && dot < slash)) {
    return "image/jpeg";
  }
  const std::string_view ext = url.substr(dot + 1);
  static constexpr std::array<std::pair<std::string_view, std::string_view>, 7> kTypes = {{
      {"png", "image/png"},
      {"jpg", "image/jpeg"},
      {"jpeg", "image/jpeg"},
      {"gif", "image/gif"},
      {"webp", "image/webp"},
      {"heic", "image/heic"},
      {"heif", "image/heif"},
  }};
  for (const auto& [e, type] : kTypes) {
    if (iequals(ext, e)) {
      return std::string(type);
    }
  }
  return "image/jpeg";
}

Json image_part(const Json& part, const Path& path) {
  const Path url_path = path + ".image_url.url";
  const Json* image = member(part, "image_url");
  std::string_view url;
  if (image != nullptr && image->is_object()) {
    url = string_member(*image, "url");
  } else if (image != nullptr && image->is_string()) {
    url = image->get_ref<const std::string&>();  // a shorthand some clients send
  }
  if (istarts_with(url, "data:")) {
    // data:<media type>[;params];base64,<data>
    const auto comma = url.find(',');
    const std::string_view meta = url.substr(5, comma == std::string_view::npos ? 0 : comma - 5);
    constexpr std::string_view kBase64 = ";base64";
    const std::string_view type = meta.substr(0, meta.find(';'));
    const bool base64 =
        meta.size() >= kBase64.size() && iequals(meta.substr(meta.size() - kBase64.size()), kBase64);
    if (comma == std::string_view::npos || !base64 || type.empty() || comma + 1 == url.size()) {
      throw InvalidRequest(url_path, "an image data URL must read data:<media type>;base64,<data>");
    }
    return Json{{"inlineData", Json{{"mimeType", type}, {"data", url.substr(comma + 1)}}}};
  }
  if (istarts_with(url, "https://") || istarts_with(url, "http://")) {
    return Json{{"fileData", Json{{"mimeType", guess_image_type(url)}, {"fileUri", url}}}};
  }
  throw InvalidRequest(url_path, "image_url.url must be a base64 data: URL or an http(s) URL");
}

// Parts of a user or assistant message's content. Empty texts are left out:
// Gemini refuses a request with an empty text part.
Json content_parts(const Json* content, const Path& path) {
  Json parts = Json::array();
  if (content == nullptr) {
    return parts;
  }
  if (content->is_string()) {
    if (!content->get_ref<const std::string&>().empty()) {
      parts.push_back(text_part(content->get_ref<const std::string&>()));
    }
    return parts;
  }
  if (!content->is_array()) {
    throw InvalidRequest(path + ".content", "content must be a string or an array of content parts");
  }
  for (std::size_t j = 0; j < content->size(); ++j) {
    const Json& part = (*content)[j];
    const Path part_path = index_path(path, "content", j);
    const std::string_view type = string_member(part, "type");
    if (type == "text") {
      const Json* text = member(part, "text");
      if (text == nullptr || !text->is_string()) {
        throw InvalidRequest(part_path + ".text", "a text content part needs a string \"text\"");
      }
      if (!text->get_ref<const std::string&>().empty()) {
        parts.push_back(text_part(text->get_ref<const std::string&>()));
      }
    } else if (type == "image_url") {
      parts.push_back(image_part(part, part_path));
    } else {
      throw InvalidRequest(part_path, "content part type " + quoted(type) +
                                          " is not supported by the gemini provider; use text or image_url");
    }
  }
  return parts;
}

// The text of a message that can only hold text (system, developer, tool).
// Parts are joined with `separator`.
std::string content_text(const Json* content, const Path& path, std::string_view separator) {
  if (content == nullptr) {
    return {};
  }
  if (content->is_string()) {
    return content->get<std::string>();
  }
  if (!content->is_array()) {
    throw InvalidRequest(path + ".content", "content must be a string or an array of text parts");
  }
  std::string text;
  for (std::size_t j = 0; j < content->size(); ++j) {
    const Json& part = (*content)[j];
    const Json* t = member(part, "text");
    if (string_member(part, "type") != "text" || t == nullptr || !t->is_string()) {
      throw InvalidRequest(index_path(path, "content", j), "this message may only hold text parts");
    }
    if (j > 0) {
      text += separator;
    }
    text += t->get_ref<const std::string&>();
  }
  return text;
}

// OpenAI sends arguments as a JSON string; Gemini wants the object itself.
Json parse_arguments(const Json* arguments, const Path& path) {
  if (arguments == nullptr) {
    return Json::object();
  }
  if (arguments->is_object()) {
    return *arguments;  // some clients send the object unserialised
  }
  const std::string_view text = arguments->is_string()
                                    ? std::string_view(arguments->get_ref<const std::string&>())
                                    : std::string_view();
  if (arguments->is_string() && text.find_first_not_of(" \t\r\n") == std::string_view::npos) {
    return Json::object();  // "" for a function without parameters
  }
  Json parsed = arguments->is_string() ? parse_bounded(text) : Json(Json::value_t::discarded);
  if (!parsed.is_object()) {
    throw InvalidRequest(path, "tool call arguments must be a JSON object serialised as a string");
  }
  return parsed;
}

// Translates one message at a time, remembering tool call names for the
// tool results that answer them.
class Translator {
 public:
  TranslatedMessages run(const Json& messages) {
    if (!messages.is_array()) {
      throw InvalidRequest("messages", "messages must be an array");
    }
    for (std::size_t i = 0; i < messages.size(); ++i) {
      message(messages[i], message_path(i));
    }
    if (!system_text_.empty()) {
      out_.system_instruction = Json{{"parts", Json::array({text_part(system_text_)})}};
    }
    return std::move(out_);
  }

 private:
  void message(const Json& msg, const Path& path) {
    if (!msg.is_object()) {
      throw InvalidRequest(path, "each message must be an object");
    }
    const std::string_view role = string_member(msg, "role");
    if (role == "system" || role == "developer") {
      system(msg, path);
    } else if (role == "user") {
      append("user", content_parts(member(msg, "content"), path));
    } else if (role == "assistant") {
      assistant(msg, path);
    } else if (role == "tool") {
      tool(msg, path);
    } else {
      throw InvalidRequest(path + ".role", "role must be one of system, developer, user, assistant, tool");
    }
  }

  // Gemini has one system instruction, wherever the client put its messages.
  void system(const Json& msg, const Path& path) {
    const std::string text = content_text(member(msg, "content"), path, "\n");
    if (text.empty()) {
      return;
    }
    if (!system_text_.empty()) {
      system_text_ += "\n\n";
    }
    system_text_ += text;
  }

  void assistant(const Json& msg, const Path& path) {
    Json parts = content_parts(member(msg, "content"), path);
    const Json* calls = member(msg, "tool_calls");
    if (calls != nullptr && !calls->is_array()) {
      throw InvalidRequest(path + ".tool_calls", "tool_calls must be an array");
    }
    for (std::size_t j = 0; calls != nullptr && j < calls->size(); ++j) {
      parts.push_back(function_call((*calls)[j], index_path(path, "tool_calls", j)));
    }
    append("model", std::move(parts));
  }

  Json function_call(const Json& call, const Path& path) {
    if (!call.is_object()) {
      throw InvalidRequest(path, "each tool call must be an object");
    }
    if (const Json* type = member(call, "type"); type != nullptr && *type != "function") {
      throw InvalidRequest(path + ".type", "only function tool calls are supported by the gemini provider");
    }
    const Json* fn = member(call, "function");
    const std::string_view name = fn == nullptr ? std::string_view() : string_member(*fn, "name");
    if (name.empty()) {
      throw InvalidRequest(path + ".function.name", "a tool call needs a function name");
    }
    Json args = parse_arguments(member(*fn, "arguments"), path + ".function.arguments");
    if (const std::string_view id = string_member(call, "id"); !id.empty()) {
      tool_names_[std::string(id)] = std::string(name);
    }
    return Json{{"functionCall", Json{{"name", name}, {"args", std::move(args)}}}};
  }

  void tool(const Json& msg, const Path& path) {
    const std::string_view id = string_member(msg, "tool_call_id");
    const auto name = tool_names_.find(std::string(id));
    if (name == tool_names_.end()) {
      throw InvalidRequest(path + ".tool_call_id",
                           id.empty() ? std::string("a tool message needs the tool_call_id it answers")
                                      : "no earlier assistant tool call has id " + quoted(id));
    }
    std::string text = content_text(member(msg, "content"), path, "");
    // Gemini's response is a JSON object: a result that is one goes as is,
    // anything else is wrapped so the model still sees it verbatim.
    Json response = parse_bounded(text);
    if (!response.is_object()) {
      response = Json{{"content", std::move(text)}};
    }
    append("user", Json::array({Json{{"functionResponse",
                                      Json{{"name", name->second}, {"response", std::move(response)}}}}}));
  }

  // Gemini wants turns to alternate; consecutive contents of one role (a
  // batch of tool results, a user text after them) become one content.
  void append(std::string_view role, Json parts) {
    if (parts.empty()) {
      return;  // an empty content is refused upstream
    }
    Json& contents = out_.contents;
    if (!contents.empty() && contents.back()["role"] == role) {
      for (auto& p : parts) {
        contents.back()["parts"].push_back(std::move(p));
      }
      return;
    }
    contents.push_back(Json{{"role", role}, {"parts", std::move(parts)}});
  }

  TranslatedMessages out_;
  std::string system_text_;
  std::unordered_map<std::string, std::string> tool_names_;  // tool_call_id → function name
};

}  // namespace

TranslatedMessages translate_messages(const Json& messages) {
  return Translator().run(messages);
}

}  // namespace mgw::gemini
