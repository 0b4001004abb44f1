// ABI 1.11, the "count_tokens" operation: a plugin that declares
// MGW_OPERATION_COUNT_TOKENS gets POST /v1/messages/count_tokens calls with
// mgw_call_context.operation "count_tokens", the body a Messages body when
// it also declares "messages", else a chat completions body (plugin.h). Its
// fixture folder's count_tokens/ holds requests/ and errors/ laid out as the
// chat ones, and responses/ whose "expect" is {"body": {"input_tokens": N}}:
// the answer is that one body, with no usage (a count is never billed). A
// request case may be written in either form; the runner tells which, and a
// case in the form the host would not send this plugin is a fixture problem.
// The body rule itself is Session::parse's, as for every operation.
#include "checks.h"
#include "expectations.h"
#include "findings.h"

#include <initializer_list>
#include <string_view>

namespace mgw::testkit {
namespace {

constexpr const char* kCountFolder = "count_tokens";

CallSpec count_call(const CallSpec& base) {
  CallSpec call = base;
  call.operation = MGW_OPERATION_COUNT_TOKENS;
  return call;
}

std::optional<Ready> counting_provider(const RunContext& ctx) {
  auto ready = ready_provider(ctx);
  if (!ready) return std::nullopt;
  if (!ready->session->declares(ready->provider, MGW_OPERATION_COUNT_TOKENS)) {
    note("the configured provider does not declare \"" MGW_OPERATION_COUNT_TOKENS
         "\" (on_provider_operations): its count_tokens/ fixtures are not checked");
    return std::nullopt;
  }
  return ready;
}

// What gives a client body away as a Messages body or as a chat completions
// body: the first sign of each found, empty when there is none. A body with
// neither (one user message, say) is the same in both forms.
struct BodyForm {
  std::string messages;
  std::string chat;
};

bool one_of(const Json& v, std::initializer_list<std::string_view> names) {
  if (!v.is_string()) return false;
  const auto& s = v.get_ref<const std::string&>();
  for (std::string_view n : names) {
    if (s == n) return true;
  }
  return false;
}

BodyForm body_form(const Json& body) {
  BodyForm f;
  const auto sign = [](std::string& where, std::string what) {
    if (where.empty()) where = std::move(what);
  };
  if (!body.is_object()) return f;
  for (const char* key : {"system", "top_k", "stop_sequences", "thinking"}) {
    if (body.contains(key)) sign(f.messages, std::string("a top-level \"") + key + "\"");
  }
  for (const char* key :
       {"max_completion_tokens", "n", "response_format", "logprobs", "frequency_penalty", "presence_penalty",
        "seed", "stream_options", "parallel_tool_calls", "logit_bias", "functions", "function_call"}) {
    if (body.contains(key)) sign(f.chat, std::string("a top-level \"") + key + "\"");
  }
  if (const auto choice = body.find("tool_choice"); choice != body.end()) {
    if (choice->is_string()) sign(f.chat, "a \"tool_choice\" string");
    if (choice->is_object() && one_of(choice->value("type", Json()), {"auto", "any", "tool", "none"})) {
      sign(f.messages, "a \"tool_choice\" of type " + short_dump(choice->at("type")));
    }
  }
  if (const auto tools = body.find("tools"); tools != body.end() && tools->is_array()) {
    for (const Json& t : *tools) {
      if (!t.is_object()) continue;
      if (t.contains("input_schema")) sign(f.messages, "a tool with \"input_schema\"");
      if (t.value("type", Json()) == "function" && t.contains("function")) {
        sign(f.chat, "a tool of \"type\": \"function\"");
      }
    }
  }
  if (const auto messages = body.find("messages"); messages != body.end() && messages->is_array()) {
    for (const Json& m : *messages) {
      if (!m.is_object()) continue;
      const Json role = m.value("role", Json());
      if (one_of(role, {"system", "developer", "tool", "function"})) {
        sign(f.chat, "a message of role " + short_dump(role));
      }
      if (m.contains("tool_calls") || m.contains("tool_call_id")) sign(f.chat, "a message with tool calls");
      const auto content = m.find("content");
      if (content == m.end() || !content->is_array()) continue;
      for (const Json& part : *content) {
        if (!part.is_object()) continue;
        const Json type = part.value("type", Json());
        if (one_of(type, {"tool_use", "tool_result", "thinking", "redacted_thinking", "document"}) ||
            (type == "image" && part.contains("source"))) {
          sign(f.messages, "a content block of type " + short_dump(type));
        }
        if (one_of(type, {"image_url", "input_audio", "file", "refusal"})) {
          sign(f.chat, "a content part of type " + short_dump(type));
        }
      }
    }
  }
  return f;
}

// Whether the host could send this plugin `c`'s body: a Messages body when
// it declares "messages", a chat body otherwise (a problem when not).
bool in_the_form_sent(const RequestCase& c, bool messages_declared) {
  const auto body = parse_json(c.body);
  const BodyForm f = body ? body_form(*body) : BodyForm{};
  if (!f.messages.empty() && !f.chat.empty()) {
    problem("the request mixes the Messages form (" + f.messages + ") and the chat form (" + f.chat +
            "): write it as the host sends it, a " +
            (messages_declared ? "Messages body (the plugin declares \"messages\")"
                               : "chat completions body (the plugin does not declare \"messages\")"));
    return false;
  }
  if (messages_declared && !f.chat.empty()) {
    problem("the request is a chat completions body (" + f.chat +
            "), but the plugin declares \"messages\", so the host sends it token counts as Messages "
            "bodies: write the case as one");
    return false;
  }
  if (!messages_declared && !f.messages.empty()) {
    problem("the request is a Messages body (" + f.messages +
            "), but the plugin does not declare \"messages\", so the host sends it token counts as chat "
            "completions bodies: write the case as one");
    return false;
  }
  return true;
}

void count_answer(Session& s, mgw_provider* p, const ResponseCase& c, bool write_expected) {
  // Session::parse holds the body to {"input_tokens": N} and refuses usage.
  const auto parsed = s.parse(p, c.call, c.status, c.headers, c.body);
  const auto events = events_json(parsed.log);
  if (events.size() != 1 || !events[0].contains("body")) {
    problem("expected one callback_body and nothing else (no usage), got " + short_dump(Json(events), 400));
    return;
  }
  if (!c.has_expect) {
    if (write_expected) {
      write_expect(c.file, Json{{"body", events[0]["body"]}});
      note("wrote \"expect\" into " + c.file.string() + " from what the plugin answered: review it");
    } else {
      problem(
          "no \"expect\" (run with --write-expected to write it from the plugin's answer, then review it)");
    }
    return;
  }
  if (const auto b = c.expect.find("body"); b != c.expect.end()) {
    if (const std::string d = json_difference(*b, events[0]["body"]); !d.empty()) {
      problem("the body differs from the expectation; JSON Patch from expected to actual: " + d);
    }
  }
}

void count_requests(const RunContext& ctx) {
  auto ready = counting_provider(ctx);
  if (!ready) return;
  const bool messages_declared = ready->session->declares(ready->provider, MGW_OPERATION_MESSAGES);
  const auto files = fixture_files(ctx.fixtures / kCountFolder, "requests", ".json");
  if (files.empty()) note("no count_tokens/requests/ fixtures");
  for (const auto& file : files) {
    const RequestCase c = load_request_case(file, count_call(ctx.settings.call));
    Step step(std::string(kCountFolder) + "/requests/" + c.name);
    if (!in_the_form_sent(c, messages_declared)) continue;
    run_request_case(*ready->session, ready->provider, c, ctx.write_expected);
  }
}

void count_answers(const RunContext& ctx, const char* sub, bool error_case) {
  auto ready = counting_provider(ctx);
  if (!ready) return;
  const auto files = fixture_files(ctx.fixtures / kCountFolder, sub, ".json");
  if (files.empty()) note(std::string("no count_tokens/") + sub + "/ fixtures");
  for (const auto& file : files) {
    const ResponseCase c = load_response_case(file, count_call(ctx.settings.call));
    Step step(std::string(kCountFolder) + "/" + sub + "/" + c.name);
    if (error_case) {
      run_response_case(*ready->session, ready->provider, c, true, ctx.write_expected);
    } else {
      count_answer(*ready->session, ready->provider, c, ctx.write_expected);
    }
  }
}

}  // namespace

std::vector<Check> count_tokens_checks(const RunContext& /*ctx*/) {
  return {
      {"count_tokens.requests",
       "count_tokens/requests/ cases, in the form the host sends (Messages or chat), build (operation "
       "\"count_tokens\") as expected",
       count_requests},
      {"count_tokens.responses",
       "count_tokens/responses/ cases answer {\"input_tokens\": N} as expected, no usage",
       [](const RunContext& c) { count_answers(c, "responses", false); }},
      {"count_tokens.errors", "count_tokens/errors/ cases map to the expected error",
       [](const RunContext& c) { count_answers(c, "errors", true); }},
  };
}

}  // namespace mgw::testkit
