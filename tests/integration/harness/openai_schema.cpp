#include "harness/openai_schema.h"

#include <string>
#include <vector>

namespace it {
namespace {

using nlohmann::json;

// Collects every violation, so one failure names them all.
class SchemaCheck {
 public:
  void require(const json& object, const char* member, bool (*type)(const json&), const char* type_name,
               const std::string& at, bool nullable = false) {
    const auto it = object.find(member);
    if (it == object.end()) {
      faults_.push_back(at + "." + member + " is required");
    } else if (!(type(*it) || (nullable && it->is_null()))) {
      faults_.push_back(at + "." + member + " must be " + type_name + (nullable ? " or null" : "") + ", is " +
                        it->dump());
    }
  }
  void optional(const json& object, const char* member, bool (*type)(const json&), const char* type_name,
                const std::string& at, bool nullable = false) {
    if (object.contains(member)) require(object, member, type, type_name, at, nullable);
  }
  void fail(std::string why) { faults_.push_back(std::move(why)); }

  ::testing::AssertionResult result(const json& body) const {
    if (faults_.empty()) return ::testing::AssertionSuccess();
    std::string all;
    for (const auto& f : faults_) all += "\n  " + f;
    return ::testing::AssertionFailure()
           << "does not conform to OpenAI's schema:" << all << "\nin " << body.dump();
  }

 private:
  std::vector<std::string> faults_;
};

bool is_string(const json& v) {
  return v.is_string();
}
bool is_integer(const json& v) {
  return v.is_number_integer();
}
bool is_object(const json& v) {
  return v.is_object();
}
bool is_array(const json& v) {
  return v.is_array();
}

bool is_finish_reason(const json& v) {
  if (!v.is_string()) return false;
  const auto& s = v.get_ref<const std::string&>();
  return s == "stop" || s == "length" || s == "tool_calls" || s == "content_filter" || s == "function_call";
}

void check_usage(SchemaCheck& c, const json& usage) {
  for (const char* m : {"prompt_tokens", "completion_tokens", "total_tokens"}) {
    c.require(usage, m, is_integer, "an integer", "usage");
  }
}

void check_envelope(SchemaCheck& c, const json& body, const char* object) {
  c.require(body, "id", is_string, "a string", "");
  c.require(body, "created", is_integer, "an integer", "");
  c.require(body, "model", is_string, "a string", "");
  c.require(body, "choices", is_array, "an array", "");
  if (body.value("object", "") != object) c.fail(std::string(".object must be \"") + object + "\"");
  // Optional, but a string when present: null breaks generated clients.
  c.optional(body, "system_fingerprint", is_string, "a string", "");
  c.optional(body, "service_tier", is_string, "a string", "", true);
}

}  // namespace

::testing::AssertionResult ConformsToChatCompletionSchema(const json& body) {
  SchemaCheck c;
  if (!body.is_object()) return ::testing::AssertionFailure() << "not an object: " << body.dump();
  check_envelope(c, body, "chat.completion");
  if (const auto choices = body.find("choices"); choices != body.end() && choices->is_array()) {
    for (std::size_t i = 0; i < choices->size(); ++i) {
      const json& choice = (*choices)[i];
      const std::string at = "choices[" + std::to_string(i) + "]";
      c.require(choice, "index", is_integer, "an integer", at);
      c.require(choice, "finish_reason", is_finish_reason, "a finish reason", at);
      c.require(choice, "logprobs", is_object, "an object", at, true);
      c.require(choice, "message", is_object, "an object", at);
      if (const auto m = choice.find("message"); m != choice.end() && m->is_object()) {
        c.require(*m, "content", is_string, "a string", at + ".message", true);
        c.require(*m, "refusal", is_string, "a string", at + ".message", true);
        if (m->value("role", "") != "assistant") c.fail(at + ".message.role must be \"assistant\"");
        c.optional(*m, "tool_calls", is_array, "an array", at + ".message");
      }
    }
  }
  c.optional(body, "usage", is_object, "an object", "");
  if (const auto usage = body.find("usage"); usage != body.end() && usage->is_object())
    check_usage(c, *usage);
  return c.result(body);
}

::testing::AssertionResult ConformsToChatCompletionChunkSchema(const json& chunk) {
  SchemaCheck c;
  if (!chunk.is_object()) return ::testing::AssertionFailure() << "not an object: " << chunk.dump();
  check_envelope(c, chunk, "chat.completion.chunk");
  if (const auto choices = chunk.find("choices"); choices != chunk.end() && choices->is_array()) {
    for (std::size_t i = 0; i < choices->size(); ++i) {
      const json& choice = (*choices)[i];
      const std::string at = "choices[" + std::to_string(i) + "]";
      c.require(choice, "index", is_integer, "an integer", at);
      c.require(choice, "delta", is_object, "an object", at);
      c.require(choice, "finish_reason", is_finish_reason, "a finish reason", at, true);
      c.optional(choice, "logprobs", is_object, "an object", at, true);
      if (const auto d = choice.find("delta"); d != choice.end() && d->is_object()) {
        c.optional(*d, "content", is_string, "a string", at + ".delta", true);
        c.optional(*d, "refusal", is_string, "a string", at + ".delta", true);
        c.optional(*d, "role", is_string, "a string", at + ".delta");
        c.optional(*d, "tool_calls", is_array, "an array", at + ".delta");
      }
    }
  }
  c.optional(chunk, "usage", is_object, "an object", "", true);
  if (const auto usage = chunk.find("usage"); usage != chunk.end() && usage->is_object())
    check_usage(c, *usage);
  return c.result(chunk);
}

}  // namespace it
