// bound_chat_prompt: the most prompt tokens a vendor whose tokenizer is not
// public can count for a chat request. Byte-level tokenizers (BPE over UTF-8
// bytes; SentencePiece with byte fallback) never make more than one token of
// one byte, so the bytes of the text the vendor is given bound its count:
// the string values of the messages, every string of the tool definitions
// (member names included: a vendor renders the schema), plus what each
// message, value and the tool-use preamble may add. README.md gives the
// figures.
#include <nlohmann/json.hpp>

#include "modelgw/tokenizer.h"

#include <string_view>

namespace modelgw::tokenizer {
namespace {

using nlohmann::json;

constexpr std::size_t kFraming = 16;         // the turn that primes the reply, a system block
constexpr std::size_t kPerMessage = 8;       // role and turn markers
constexpr std::size_t kPerValue = 2;         // quotes, separators, a number's digits at most...
constexpr std::size_t kPerNumber = 24;       // ...except numbers: a double prints in up to 24 bytes
constexpr std::size_t kToolPreamble = 1024;  // the system text a vendor adds when tools are offered
// One image after the vendors' resizing: Anthropic caps one at about 1,600
// tokens; Gemini counts 258 per 768-pixel tile (24 tiles is a 3,072 x 4,608
// image). Audio and file parts are not bounded (README.md).
constexpr std::size_t kPerImage = 6400;

bool is_media_part(const json& part, std::size_t& tokens) {
  if (!part.is_object()) return false;
  const auto type = part.find("type");
  if (type == part.end() || !type->is_string()) return false;
  const auto& t = type->get_ref<const std::string&>();
  if (t == "image_url" || t == "input_image" || t == "image") {
    tokens += kPerImage;
    return true;
  }
  return t == "input_audio" || t == "file" || t == "input_file";
}

// Bytes of every string under `v` (and of the keys too, with `keys`: a tool
// schema is rendered with its member names), and an allowance per value.
// Request bodies are at most kMaxJsonDepth deep (checked before this runs).
std::size_t bytes_of(const json& v, bool keys) {
  switch (v.type()) {
    case json::value_t::string:
      return v.get_ref<const std::string&>().size() + (keys ? kPerValue : 0);
    case json::value_t::object: {
      std::size_t n = keys ? kPerValue : 0;
      for (auto it = v.begin(); it != v.end(); ++it) {
        n += (keys ? it.key().size() + kPerValue : 0) + bytes_of(it.value(), keys);
      }
      return n;
    }
    case json::value_t::array: {
      std::size_t n = keys ? kPerValue : 0;
      for (const json& e : v) {
        std::size_t media = 0;
        n += is_media_part(e, media) ? media : bytes_of(e, keys);
      }
      return n;
    }
    case json::value_t::number_integer:
    case json::value_t::number_unsigned:
    case json::value_t::number_float:
      return kPerNumber;
    default:
      return keys ? kPerValue + 4 : 0;  // true, false, null
  }
}

}  // namespace

std::size_t bound_chat_prompt(const json& request) {
  if (!request.is_object()) return 0;
  std::size_t n = kFraming;
  if (const auto messages = request.find("messages"); messages != request.end() && messages->is_array()) {
    // A message's text is its string values (role, content, a tool call's
    // name and arguments); its member names are framing, not text.
    for (const json& m : *messages) n += kPerMessage + bytes_of(m, false);
  }
  bool tools = false;
  for (const char* key : {"tools", "functions", "tool_choice", "function_call", "response_format"}) {
    const auto it = request.find(key);
    if (it == request.end() || it->is_null()) continue;
    n += bytes_of(*it, true);
    tools = tools || std::string_view(key) == "tools" || std::string_view(key) == "functions";
  }
  if (tools) n += kToolPreamble;
  return n;
}

}  // namespace modelgw::tokenizer
