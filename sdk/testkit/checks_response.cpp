// on_parse_response: the responses/ and errors/ fixtures, then every status
// from 100 to 599 with bodies no vendor sends as an answer. Each of those is
// exactly one callback_error with a 4xx/5xx status, a code and a message
// that quotes neither the api_key nor the vendor's HTML.
#include "checks.h"
#include "expectations.h"
#include "findings.h"
#include "hostile_inputs.h"
#include "text_rules.h"

namespace mgw::testkit {
namespace {

// Marks a vendor's error page: an error message must never quote it.
constexpr const char* kHtmlMarker = "conformance-html-marker";

std::string configured_key(const RunContext& ctx) {
  const auto j = parse_json(ctx.settings.provider_config);
  if (j && j->is_object() && j->contains("api_key") && (*j)["api_key"].is_string()) {
    return (*j)["api_key"].get<std::string>();
  }
  return {};
}

struct Body {
  std::string label;
  std::string text;
  Headers headers;
};

// Bodies cheap enough to send with every status.
std::vector<Body> garbage_bodies(const RunContext& ctx) {
  const std::string key = configured_key(ctx);
  std::vector<Body> out = {
      {"an empty body", "", {}},
      {"an HTML page",
       std::string("<html><head><title>") + kHtmlMarker +
           "</title></head><body>502 Bad Gateway</body></html>",
       {{"Content-Type", "text/html; charset=UTF-8"}}},
      {"a JSON null", "null", {{"Content-Type", "application/json"}}},
      {"an empty object", "{}", {{"Content-Type", "application/json"}}},
      {"an array", "[1,2,3]", {{"Content-Type", "application/json"}}},
      {"a truncated object", R"({"error": {"message": "x)", {{"Content-Type", "application/json"}}},
      {"an error object of wrong types",
       R"({"error": {"message": 42, "type": [], "code": {}}, "choices": "x"})",
       {{"Content-Type", "application/json"}}},
      {"invalid UTF-8", "\xFF\xFE{\"error\":\"\xC3\x28\"}", {}},
      {"garbage headers",
       "{}",
       {{"Retry-After", "-1"},
        {"Retry-After", "99999999999999999999"},
        {"Content-Type", "\x01\xFF"},
        {"", ""}}},
  };
  if (!key.empty()) {
    out.push_back({"a vendor message quoting the api_key",
                   R"({"error": {"message": "Incorrect API key provided: )" + key +
                       R"(", "type": "invalid_request_error"}, "message": "bad key )" + key + R"("})",
                   {{"Content-Type", "application/json"}}});
    out.push_back(
        {"a text body quoting the api_key", "invalid key " + key, {{"Content-Type", "text/plain"}}});
  }
  return out;
}

// Bodies too costly for all 500 statuses: sent with a few.
std::vector<Body> heavy_bodies() {
  return {
      {"1 MiB of junk", std::string(kHuge, 'x'), {}},
      {"1 MiB of unclosed brackets", std::string(kHuge, '['), {{"Content-Type", "application/json"}}},
      {"a JSON string of 1 MiB",
       "\"" + std::string(kHuge, 's') + "\"",
       {{"Content-Type", "application/json"}}},
      {"an error message of 1 MiB",
       R"({"error":{"message":")" + std::string(kHuge, 'm') + R"("}})",
       {{"Content-Type", "application/json"}}},
      {"100000 levels of nesting", nested_arrays(100000), {{"Content-Type", "application/json"}}},
  };
}

// None of these bodies is a vendor's answer, whatever the status: each is
// a failure, reported as one error.
void check_answer(const Session::Parsed& parsed, bool html) {
  const ErrorSeen* e = parsed.log.error();
  if (e == nullptr) {
    if (parsed.log.count(Emitted::Kind::body) > 0) {
      problem("a body that is not the vendor's answer was mapped to a success instead of callback_error");
    }
    return;  // neither body nor error: reported by the session
  }
  if (html && e->message.find(kHtmlMarker) != std::string::npos) {
    problem("the error message quotes the vendor's HTML page: " + printable(e->message, 200));
  }
}

void every_status(const RunContext& ctx) {
  auto ready = ready_provider(ctx);
  if (!ready) return;
  const auto bodies = garbage_bodies(ctx);
  for (const bool stream : {false, true}) {
    CallSpec call = ctx.settings.call;
    call.stream = stream;
    for (int status = 100; status <= 599; ++status) {
      for (const auto& b : bodies) {
        Step step("on_parse_response (" + std::string(stream ? "streamed call" : "call") + "), HTTP " +
                  std::to_string(status) + " with " + b.label);
        const auto parsed = ready->session->parse(ready->provider, call, status, b.headers, b.text);
        check_answer(parsed, b.label == "an HTML page");
      }
    }
  }
  for (const int status : {200, 400, 429, 500, 503}) {
    for (const auto& b : heavy_bodies()) {
      Step step("on_parse_response, HTTP " + std::to_string(status) + " with " + b.label);
      const auto parsed =
          ready->session->parse(ready->provider, ctx.settings.call, status, b.headers, b.text);
      check_answer(parsed, false);
    }
  }
  {
    Step step("on_parse_response with 1000 headers");
    Headers many;
    for (int i = 0; i < 1000; ++i) many.emplace_back("X-H" + std::to_string(i), std::string(100, 'v'));
    ready->session->parse(ready->provider, ctx.settings.call, 500, many, "{}");
  }
}

void response_fixtures(const RunContext& ctx) {
  const auto files = fixture_files(ctx.fixtures, "responses", ".json");
  if (files.empty()) {
    note("no responses/ fixtures");
    return;
  }
  auto ready = ready_provider(ctx);
  if (!ready) return;
  for (const auto& file : files) {
    const ResponseCase c = load_response_case(file, ctx.settings.call);
    Step step("responses/" + c.name);
    run_response_case(*ready->session, ready->provider, c, false, ctx.write_expected);
  }
}

}  // namespace

std::vector<Check> response_checks() {
  return {
      {"response.fixtures", "responses/ cases map to the expected usage and chat.completion body",
       response_fixtures},
      {"response.every_status", "HTTP 100..599 with garbage bodies: one clean error each, never a crash",
       every_status},
  };
}

std::vector<Check> error_table_checks() {
  return {{"errors.table", "errors/ cases map to the expected status, code, retryable and Retry-After",
           [](const RunContext& ctx) {
             const auto files = fixture_files(ctx.fixtures, "errors", ".json");
             if (files.empty()) {
               note("no errors/ fixtures");
               return;
             }
             auto ready = ready_provider(ctx);
             if (!ready) return;
             for (const auto& file : files) {
               const ResponseCase c = load_response_case(file, ctx.settings.call);
               Step step("errors/" + c.name);
               run_response_case(*ready->session, ready->provider, c, true, ctx.write_expected);
             }
           }}};
}

}  // namespace mgw::testkit
