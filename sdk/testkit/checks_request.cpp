// on_build_request: the requests/ fixtures, then hostile bodies and every
// standard OpenAI parameter with a value of the wrong JSON type.
//
// The host promises a plugin a JSON object nested at most 64 deep, with a
// string "model", a non-empty "messages" array of objects with a known
// string "role" and a string, array or null "content", and a boolean
// "stream" and positive integer "max_tokens" when present. A body outside
// that promise must only get a coherent answer (built, or refused through
// the error sink). A body within it must be built or refused as the
// client's mistake (4xx): a wrong type is never the plugin's own failure.
// A plugin that declares its parameters (ABI 1.4) only ever sees those it
// maps: the host drops or refuses every other one before the call.
#include "abi_sizes.h"
#include "checks.h"
#include "findings.h"
#include "hostile_inputs.h"
#include "text_rules.h"

#include <algorithm>

namespace mgw::testkit {
namespace {

struct Param {
  const char* name;
  std::vector<std::string> types;
  bool host_checked;  // the gateway validates it before the plugin sees it
};

// The chat completion parameters of OpenAI's API and the types they take.
const std::vector<Param>& standard_params() {
  static const std::vector<Param> params = {
      {"model", {"string"}, true},
      {"messages", {"array"}, true},
      {"stream", {"boolean", "null"}, true},
      {"max_tokens", {"integer", "null"}, true},
      {"max_completion_tokens", {"integer", "null"}, true},
      {"temperature", {"number", "null"}, false},
      {"top_p", {"number", "null"}, false},
      {"n", {"integer", "null"}, false},
      {"stop", {"string", "array", "null"}, false},
      {"presence_penalty", {"number", "null"}, false},
      {"frequency_penalty", {"number", "null"}, false},
      {"logit_bias", {"object", "null"}, false},
      {"logprobs", {"boolean", "null"}, false},
      {"top_logprobs", {"integer", "null"}, false},
      {"user", {"string", "null"}, false},
      {"seed", {"integer", "null"}, false},
      {"tools", {"array", "null"}, false},
      {"tool_choice", {"string", "object", "null"}, false},
      {"parallel_tool_calls", {"boolean", "null"}, false},
      {"response_format", {"object", "null"}, false},
      {"stream_options", {"object", "null"}, false},
      {"reasoning_effort", {"string", "null"}, false},
      {"metadata", {"object", "null"}, false},
      {"store", {"boolean", "null"}, false},
      {"service_tier", {"string", "null"}, false},
      {"modalities", {"array", "null"}, false},
      {"prediction", {"object", "null"}, false},
      {"audio", {"object", "null"}, false},
  };
  return params;
}

// True when the host passes the parameter `name` to the plugin: always, for
// a plugin that declares no parameters; else only when it maps `name`.
bool reaches_plugin(const Session& s, mgw_provider* p, std::string_view name) {
  const std::vector<ParamSeen>* params = s.parameters(p);
  if (params == nullptr || name == "stream_options") return true;  // the gateway's own member: passed on
  return std::any_of(params->begin(), params->end(),
                     [&](const ParamSeen& q) { return q.name == name && q.handling == MGW_PARAM_MAPPED; });
}

// Within the host's promise: built, or refused as the client's mistake.
void expect_client_answer(const Session::Built& b) {
  if (b.status == MGW_OK) return;
  const ErrorSeen* e = b.error.error();
  if (e == nullptr) return;  // reported by the session
  if (b.status != MGW_INVALID_ARGUMENT || e->http_status < 400 || e->http_status > 499) {
    problem("answered " + status_name(b.status) + " with " + std::to_string(e->http_status) + " " + e->code +
            " (" + printable(e->message, 120) +
            "): a body the gateway accepts is translated or refused as the client's mistake "
            "(MGW_INVALID_ARGUMENT with a 4xx), never failed as the plugin's own (5xx)");
  }
}

void build_both_ways(Session& s, mgw_provider* p, const CallSpec& call, const std::string& body,
                     bool within_promise) {
  for (const bool members : {true, false}) {
    Step step(members ? "with the member index" : "without the member index");
    const auto built = s.build(p, call, body, members);
    if (within_promise) expect_client_answer(built);
  }
}

void request_fixtures(const RunContext& ctx) {
  const auto files = fixture_files(ctx.fixtures, "requests", ".json");
  if (files.empty()) note("no requests/ fixtures: only the built-in minimal request is checked");
  auto ready = ready_provider(ctx);
  if (!ready) return;
  {
    Step step("the minimal request");
    const auto built =
        ready->session->build(ready->provider, ctx.settings.call,
                              R"({"model":"conformance-alias","messages":[{"role":"user","content":"Hi"}]})");
    if (built.status != MGW_OK) problem("refused (" + status_name(built.status) + ")");
  }
  for (const auto& file : files) {
    const RequestCase c = load_request_case(file, ctx.settings.call);
    Step step("requests/" + c.name);
    run_request_case(*ready->session, ready->provider, c, ctx.write_expected);
  }
}

void hostile_bodies(const RunContext& ctx) {
  auto ready = ready_provider(ctx);
  if (!ready) return;
  Session& s = *ready->session;
  for (const bool stream : {false, true}) {
    CallSpec call = ctx.settings.call;
    call.stream = stream;
    const std::string mode = stream ? "streamed" : "not streamed";
    // The 1 MiB bodies say nothing new when streamed; they are the costly ones.
    const auto heavy = [&](const std::string& body) { return stream && body.size() > 65536; };
    for (const auto& h : not_a_json_object()) {
      if (heavy(h.bytes)) continue;
      Step step("on_build_request (" + mode + ") with " + h.label + " (beyond the host's promise)");
      build_both_ways(s, ready->provider, call, h.bytes, false);
    }
    const std::vector<std::pair<std::string, std::string>> beyond = {
        {"an empty object", "{}"},
        {"no messages", R"({"model":"m"})"},
        {"an empty messages array", R"({"model":"m","messages":[]})"},
        {"100 levels of nesting",
         R"({"model":"m","messages":[{"role":"user","content":"x"}],"x":)" + nested_arrays(100) + "}"},
    };
    for (const auto& [label, body] : beyond) {
      Step step("on_build_request (" + mode + ") with " + label + " (beyond the host's promise)");
      build_both_ways(s, ready->provider, call, body, false);
    }
    Json base = Json::parse(base_request(ctx));
    const auto with = [&](const char* key, Json value) {
      Json j = base;
      j[key] = std::move(value);
      return j.dump();
    };
    Json many = base;
    many["messages"] = Json::array();
    for (int i = 0; i < 10000; ++i) {
      many["messages"].push_back(
          {{"role", i % 2 == 0 ? "user" : "assistant"}, {"content", "m" + std::to_string(i)}});
    }
    struct Case {
      std::string label;
      std::string param;  // the parameter it sends, if any
      std::string body;
    };
    const std::vector<Case> cases = {
        {"a 1 MiB message", "",
         with("messages", Json::array({{{"role", "user"}, {"content", std::string(kHuge, 'a')}}}))},
        {"10000 messages", "", many.dump()},
        {"control characters, NUL and emoji in content", "",
         with("messages",
              Json::array({{{"role", "user"},
                            {"content", std::string("a\0b\x01\x1f\u2028 \xF0\x9F\x98\x80 \u202E", 17)}}}))},
        {"an unknown parameter 62 levels deep", "x_conformance_deep",
         [&] {
           std::string text = base.dump();
           text.pop_back();
           return text + R"(,"x_conformance_deep":)" + nested_arrays(62) + "}";
         }()},
        {"an unknown parameter of 1 MiB", "x_conformance_padding",
         with("x_conformance_padding", std::string(kHuge, 'p'))},
        {"a parameter given twice", "temperature",
         [&] {
           std::string text = base.dump();
           text.pop_back();
           return text + R"(,"temperature":0.5,"temperature":0.7})";
         }()},
        {"a key written with escapes", "temperature",
         [&] {
           std::string text = base.dump();
           text.pop_back();
           return text + R"(,"temp\u0065rature":0.5})";
         }()},
        {"the largest number", "temperature", with("temperature", 1.7976931348623157e308)},
        {"a negative count", "n", with("n", -1)},
        {"a huge seed", "seed", with("seed", Json(18446744073709551615ull))},
    };
    for (const auto& c : cases) {
      if (heavy(c.body)) continue;
      const bool within = c.param.empty() || reaches_plugin(s, ready->provider, c.param);
      Step step("on_build_request (" + mode + ") with " + c.label +
                (within ? "" : " (beyond the host's promise)"));
      build_both_ways(s, ready->provider, call, c.body, within);
    }
  }
}

void request_wrong_types(const RunContext& ctx) {
  auto ready = ready_provider(ctx);
  if (!ready) return;
  Session& s = *ready->session;
  const Json base = Json::parse(base_request(ctx));
  for (const Param& param : standard_params()) {
    for (const Json& wrong : values_not_of(param.types)) {
      Json j = base;
      j[param.name] = wrong;
      const bool within = !param.host_checked && reaches_plugin(s, ready->provider, param.name);
      Step step("on_build_request with \"" + std::string(param.name) + "\": " + short_dump(wrong, 60) +
                (within ? "" : " (beyond the host's promise)"));
      build_both_ways(s, ready->provider, ctx.settings.call, j.dump(), within);
    }
  }
  // Inside a message: what the host does not check.
  const std::vector<std::pair<std::string, Json>> message_cases = {
      {"content parts that are not objects", Json::array({42, "text", nullptr})},
      {"a content part with a numeric type", Json::array({{{"type", 42}, {"text", "x"}}})},
      {"a text part whose text is a number", Json::array({{{"type", "text"}, {"text", 42}}})},
      {"a text part without text", Json::array({{{"type", "text"}}})},
      {"an image part whose image_url is a string",
       Json::array({{{"type", "image_url"}, {"image_url", "x"}}})},
      {"an image part with an empty url",
       Json::array({{{"type", "image_url"}, {"image_url", {{"url", ""}}}}})},
      {"an unknown part type", Json::array({{{"type", "x_conformance"}, {"x", 1}}})},
  };
  for (const auto& [label, content] : message_cases) {
    Json j = base;
    j["messages"] = Json::array({{{"role", "user"}, {"content", content}}});
    Step step("on_build_request with " + label);
    build_both_ways(s, ready->provider, ctx.settings.call, j.dump(), true);
  }
  const std::vector<std::pair<std::string, Json>> assistant_cases = {
      {"tool_calls that is a string", {{"role", "assistant"}, {"content", nullptr}, {"tool_calls", "x"}}},
      {"a tool call that is a number", {{"role", "assistant"}, {"content", nullptr}, {"tool_calls", {42}}}},
      {"a tool call without a function",
       {{"role", "assistant"}, {"content", nullptr}, {"tool_calls", {{{"id", "c1"}, {"type", "function"}}}}}},
      {"a tool call whose arguments are an object",
       {{"role", "assistant"},
        {"content", nullptr},
        {"tool_calls",
         {{{"id", "c1"}, {"type", "function"}, {"function", {{"name", "f"}, {"arguments", {{"a", 1}}}}}}}}}},
      {"a tool call whose arguments are not JSON",
       {{"role", "assistant"},
        {"content", nullptr},
        {"tool_calls",
         {{{"id", "c1"}, {"type", "function"}, {"function", {{"name", "f"}, {"arguments", "{oops"}}}}}}}},
      {"a tool message without tool_call_id", {{"role", "tool"}, {"content", "r"}}},
      {"a tool message whose tool_call_id is a number",
       {{"role", "tool"}, {"content", "r"}, {"tool_call_id", 7}}},
      {"a name that is a number", {{"role", "user"}, {"content", "x"}, {"name", 7}}},
      {"a function message", {{"role", "function"}, {"content", "x"}, {"name", "f"}}},
      {"a message with null content", {{"role", "user"}, {"content", nullptr}}},
  };
  for (const auto& [label, message] : assistant_cases) {
    Json j = base;
    j["messages"] = Json::array({{{"role", "user"}, {"content", "Hi"}}, message});
    Step step("on_build_request with " + label);
    build_both_ways(s, ready->provider, ctx.settings.call, j.dump(), true);
  }
  const std::vector<std::pair<std::string, Json>> tool_cases = {
      {"a tool that is a string", Json::array({"f"})},
      {"a tool without a function", Json::array({{{"type", "function"}}})},
      {"a tool whose parameters are a string",
       Json::array({{{"type", "function"}, {"function", {{"name", "f"}, {"parameters", "x"}}}}})},
      {"a tool whose name is a number", Json::array({{{"type", "function"}, {"function", {{"name", 7}}}}})},
  };
  const bool tools_reach = reaches_plugin(s, ready->provider, "tools");
  for (const auto& [label, tools] : tool_cases) {
    Json j = base;
    j["tools"] = tools;
    Step step("on_build_request with " + label + (tools_reach ? "" : " (beyond the host's promise)"));
    build_both_ways(s, ready->provider, ctx.settings.call, j.dump(), tools_reach);
  }
}

}  // namespace

std::vector<Check> request_checks() {
  return {
      {"request.fixtures", "requests/ cases build as expected, the same with and without the member index",
       request_fixtures},
      {"request.hostile_bodies", "empty, huge, invalid UTF-8 and malformed bodies get a coherent answer",
       hostile_bodies},
      {"request.wrong_types",
       "every standard parameter of the wrong JSON type is built or refused with a 4xx", request_wrong_types},
  };
}

}  // namespace mgw::testkit
