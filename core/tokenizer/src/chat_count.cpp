// count_chat_prompt: OpenAI's chat prompt accounting, as in the OpenAI
// cookbook's "How to count tokens with tiktoken" (num_tokens_from_messages),
// extended to the request members it leaves out. README.md lists the rules.
#include <nlohmann/json.hpp>

#include "modelgw/tokenizer.h"

namespace modelgw::tokenizer {
namespace {

using nlohmann::json;

// Every message is wrapped as <|start|>{role}<|message|>{content}<|end|>.
constexpr std::size_t kTokensPerMessage = 3;
// A name is written after the role with a separator token.
constexpr std::size_t kTokensPerName = 1;
// The reply is primed with <|start|>assistant<|message|>.
constexpr std::size_t kReplyPriming = 3;
// A low-detail image costs a flat 85 tokens; high detail costs 85 plus 170
// per 512px tile, which needs the image's size, unknown without fetching it.
constexpr std::size_t kTokensPerImage = 85;

// The member `key` of `object`, or nullptr when `object` is not an object or
// has no such member: request bodies are client input, any shape can come.
const json* member(const json& object, const char* key) {
  if (!object.is_object()) return nullptr;
  const auto it = object.find(key);
  return it == object.end() ? nullptr : &*it;
}

class Counter {
 public:
  explicit Counter(const Encoding* enc) : enc_(enc) {}

  std::size_t text(std::string_view s) const { return enc_ != nullptr ? enc_->count(s) : estimate_tokens(s); }

  // The string at `key`, or 0 when absent or not a string.
  std::size_t text_member(const json& object, const char* key) const {
    const json* v = member(object, key);
    return v != nullptr && v->is_string() ? text(v->get_ref<const std::string&>()) : 0;
  }

  std::size_t content(const json& c) const {
    if (c.is_string()) return text(c.get_ref<const std::string&>());
    if (!c.is_array()) return 0;
    std::size_t n = 0;
    for (const json& part : c) {
      const json* type = member(part, "type");
      if (type == nullptr || !type->is_string()) continue;
      const auto& t = type->get_ref<const std::string&>();
      if (t == "text") {
        n += text_member(part, "text");
      } else if (t == "refusal") {
        n += text_member(part, "refusal");
      } else if (t == "image_url") {
        n += kTokensPerImage;
      }
      // input_audio and file parts are not counted: their token cost depends
      // on media the gateway does not decode, and undercounting only lets
      // the vendor make the final call.
    }
    return n;
  }

  // A call's function name and its JSON arguments, counted as text.
  std::size_t function_call(const json& fn) const {
    return text_member(fn, "name") + text_member(fn, "arguments");
  }

  std::size_t message(const json& m) const {
    std::size_t n = kTokensPerMessage + text_member(m, "role") + text_member(m, "refusal");
    if (const json* c = member(m, "content")) n += content(*c);
    if (const json* name = member(m, "name"); name != nullptr && name->is_string()) {
      n += text(name->get_ref<const std::string&>()) + kTokensPerName;
    }
    if (const json* calls = member(m, "tool_calls"); calls != nullptr && calls->is_array()) {
      for (const json& call : *calls) {
        if (const json* fn = member(call, "function")) n += function_call(*fn);
      }
    }
    if (const json* fc = member(m, "function_call")) n += function_call(*fc);
    return n;
  }

  // A function definition: name, description and the parameters schema as
  // compact JSON. OpenAI renders definitions in its own (undocumented,
  // TypeScript-like) syntax; the JSON text is a close, slightly high stand-in.
  std::size_t function_definition(const json& fn) const {
    std::size_t n = text_member(fn, "name") + text_member(fn, "description");
    if (const json* p = member(fn, "parameters"); p != nullptr && !p->is_null()) {
      // Never throws: invalid UTF-8 in a string is replaced, not an error.
      n += text(p->dump(-1, ' ', false, json::error_handler_t::replace));
    }
    return n;
  }

 private:
  const Encoding* enc_;
};

}  // namespace

std::size_t count_chat_prompt(const Encoding* enc, const json& request) {
  if (!request.is_object()) return 0;
  const Counter counter(enc);
  std::size_t n = kReplyPriming;
  if (const json* messages = member(request, "messages"); messages != nullptr && messages->is_array()) {
    for (const json& m : *messages) {
      if (m.is_object()) n += counter.message(m);
    }
  }
  if (const json* tools = member(request, "tools"); tools != nullptr && tools->is_array()) {
    for (const json& tool : *tools) {
      if (const json* fn = member(tool, "function")) n += counter.function_definition(*fn);
    }
  }
  if (const json* fns = member(request, "functions"); fns != nullptr && fns->is_array()) {
    for (const json& fn : *fns) n += counter.function_definition(fn);
  }
  return n;
}

}  // namespace modelgw::tokenizer
