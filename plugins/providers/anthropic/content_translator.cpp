#include "content_translator.h"

#include "rejection.h"

#include <modelgw/provider/ascii.hpp>

namespace mgw::anthropic {

using namespace mgw::provider;

namespace {

std::string part_path(std::string_view path, std::size_t j) {
  return std::string(path) + ".content[" + std::to_string(j) + "]";
}

// A part's type, echoed in an error: the client's own text, but cut so a
// hostile value cannot bloat the message.
std::string quoted_type(const Json& part) {
  const std::string_view type = string_member(part, "type");
  return type.empty() ? std::string("without a type") : "'" + std::string(type.substr(0, 64)) + "'";
}

Json text_block(std::string_view text) {
  return Json{{"type", "text"}, {"text", text}};
}

// {"type":"image_url","image_url":{"url":…}}; some clients send the URL as a
// plain string, which costs nothing to accept.
Json image_block(const Json& part, const std::string& where) {
  const Json* image = member(part, "image_url");
  std::string_view url;
  if (image != nullptr && image->is_string()) {
    url = image->get_ref<const std::string&>();
  } else if (image != nullptr) {
    url = string_member(*image, "url");
  }
  if (url.empty()) {
    reject_invalid(where + ".image_url.url", "image_url.url must be a non-empty string");
  }
  // data:<media type>;base64,<data> → a base64 source.
  if (istarts_with(url, "data:")) {
    constexpr std::string_view kMarker = ";base64,";
    const auto marker = url.find(kMarker);
    const std::string_view media_type = url.substr(5, marker == std::string_view::npos ? 0 : marker - 5);
    if (marker == std::string_view::npos || media_type.empty()) {
      reject_invalid(where + ".image_url.url",
                     "image data URLs must have the form data:<media type>;base64,<data>");
    }
    return Json{
        {"type", "image"},
        {"source",
         {{"type", "base64"}, {"media_type", media_type}, {"data", url.substr(marker + kMarker.size())}}}};
  }
  if (istarts_with(url, "https://") || istarts_with(url, "http://")) {
    return Json{{"type", "image"}, {"source", {{"type", "url"}, {"url", url}}}};
  }
  reject_invalid(where + ".image_url.url", "image_url.url must be an http(s) URL or a base64 data URL");
}

Json part_block(const Json& part, const std::string& where, bool text_only) {
  if (!part.is_object()) {
    reject_invalid(where, "a content part must be an object");
  }
  const std::string_view type = string_member(part, "type");
  if (type == "text" || (type == "refusal" && !text_only)) {
    const Json* text = member(part, type);
    if (text == nullptr || !text->is_string()) {
      reject_invalid(where, "a " + std::string(type) + " part needs a string '" + std::string(type) + "'");
    }
    return text_block(text->get_ref<const std::string&>());
  }
  if (type == "image_url" && !text_only) {
    return image_block(part, where);
  }
  reject_invalid(where, "content part type " + quoted_type(part) +
                            " is not supported by the anthropic provider" +
                            (text_only ? " here; only text parts are" : ""));
}

Json blocks(const Json& parts, std::string_view path, bool text_only) {
  Json out = Json::array();
  for (std::size_t j = 0; j < parts.size(); ++j) {
    out.push_back(part_block(parts[j], part_path(path, j), text_only));
  }
  return out;
}

}  // namespace

Json message_content(const Json& content, std::string_view path) {
  if (content.is_string()) {
    return content;
  }
  if (content.is_array()) {
    return blocks(content, path, /*text_only=*/false);
  }
  reject_invalid(std::string(path) + ".content", "content must be a string or an array of content parts");
}

Json tool_result_content(const Json& content, std::string_view path) {
  if (content.is_string()) {
    return content;
  }
  if (content.is_array()) {
    return blocks(content, path, /*text_only=*/true);
  }
  reject_invalid(std::string(path) + ".content", "content must be a string or an array of text parts");
}

std::string system_text(const Json& content, std::string_view path) {
  if (content.is_string()) {
    return content.get<std::string>();
  }
  if (!content.is_array()) {
    reject_invalid(std::string(path) + ".content", "content must be a string or an array of text parts");
  }
  std::string text;
  for (const Json& block : blocks(content, path, /*text_only=*/true)) {
    const auto& t = block["text"].get_ref<const std::string&>();
    if (!t.empty()) {
      text += text.empty() ? "" : "\n\n";
      text += t;
    }
  }
  return text;
}

}  // namespace mgw::anthropic
