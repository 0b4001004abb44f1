// What several checks share: a ready provider, the base request, and the
// drivers that run one fixture case and compare it with its expectation.
#include "checks.h"
#include "expectations.h"
#include "findings.h"
#include "text_rules.h"

#include <algorithm>

namespace mgw::testkit {
namespace {

constexpr const char* kMinimalRequest =
    R"({"model":"conformance-alias","messages":[{"role":"user","content":"Hello"}]})";

bool same_name(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) == std::tolower(static_cast<unsigned char>(y));
         });
}

// Problems where a built request differs from requests/ "expect".
void compare_request(const Json& expect, const Session::Built& built) {
  const RequestLog& r = built.request;
  if (const auto m = expect.find("method"); m != expect.end() && *m != r.method.value_or("POST")) {
    problem("method: expected " + short_dump(*m) + ", got " + r.method.value_or("POST (not set)"));
  }
  if (const auto p = expect.find("path"); p != expect.end() && *p != r.path.value_or("")) {
    problem("path: expected " + short_dump(*p) + ", got " + printable(r.path.value_or("(not set)")));
  }
  if (const auto h = expect.find("headers"); h != expect.end() && h->is_object()) {
    for (const auto& [name, value] : h->items()) {
      const auto it = std::find_if(r.headers.begin(), r.headers.end(),
                                   [&](const auto& kv) { return same_name(kv.first, name); });
      if (it == r.headers.end()) {
        if (!value.is_null()) problem("header " + name + ": expected, not sent");
      } else if (value.is_null()) {
        problem("header " + name + ": expected absent, sent");
      } else if (value != it->second) {
        problem("header " + name + ": expected " + short_dump(value) + ", got '" + printable(it->second) +
                "'");
      }
    }
  }
  if (const auto b = expect.find("body"); b != expect.end()) {
    std::string why;
    const auto got = parse_json(r.body.value_or(""), &why);
    if (!got) {
      problem("the upstream body is not JSON (" + why + "): " + printable(r.body.value_or("")));
    } else if (const std::string d = json_difference(*b, *got); !d.empty()) {
      problem("the upstream body differs from the expectation; JSON Patch from expected to actual: " + d);
    }
  }
}

// Two requests the plugin built from one body must be the same request.
void compare_built(const Session::Built& a, const Session::Built& b) {
  if (a.request.method != b.request.method || a.request.path != b.request.path ||
      a.request.headers != b.request.headers) {
    problem("the upstream request's method, path or headers differ when the host gives the member index");
  }
  const auto ja = parse_json(a.request.body.value_or(""));
  const auto jb = parse_json(b.request.body.value_or(""));
  const bool same = ja && jb ? *ja == *jb : a.request.body == b.request.body;
  if (!same) {
    problem("the upstream body built with the host's member index differs from the one built by parsing: " +
            (ja && jb ? json_difference(*jb, *ja) : printable(a.request.body.value_or(""))));
  }
}

}  // namespace

std::optional<Ready> ready_provider(const RunContext& ctx, const HostShape& shape) {
  Ready r;
  r.session = std::make_unique<Session>(ctx.entry, shape);
  if (r.session->hooks() == nullptr) {
    problem("cannot run: " + r.session->unusable_reason());
    return std::nullopt;
  }
  Step step("on_provider_new with the configured provider block");
  const auto created = r.session->create(ctx.settings.provider_config);
  if (created.status != MGW_OK) {
    problem("the configured provider block was refused (" + status_name(created.status) +
            "): " + printable(created.error_text, 300));
    return std::nullopt;
  }
  r.provider = created.provider;
  return r;
}

std::string base_request(const RunContext& ctx) {
  for (const auto& file : fixture_files(ctx.fixtures, "requests", ".json")) {
    const RequestCase c = load_request_case(file, ctx.settings.call);
    if (!c.expect.contains("refused")) return c.body;
  }
  return kMinimalRequest;
}

namespace {

// No "expect" in a case file: write one, or say it is missing.
bool missing_expect(const std::filesystem::path& file, bool has_expect, bool write_expected,
                    const Json& answer) {
  if (has_expect) return false;
  if (write_expected) {
    write_expect(file, answer);
    note("wrote \"expect\" into " + file.string() + " from what the plugin answered: review it");
  } else {
    problem("no \"expect\" (run with --write-expected to write it from the plugin's answer, then review it)");
  }
  return true;
}

Json request_answer(const Session::Built& b) {
  if (b.status != MGW_OK) {
    const ErrorSeen* e = b.error.error();
    return {{"refused", e != nullptr ? error_json(*e) : Json::object()}};
  }
  Json headers = Json::object();
  for (const auto& [n, v] : b.request.headers) headers[n] = v;
  Json answer = {{"method", b.request.method.value_or("POST")},
                 {"path", b.request.path.value_or("")},
                 {"headers", headers}};
  const auto body = parse_json(b.request.body.value_or(""));
  answer["body"] = body ? *body : Json(b.request.body.value_or(""));
  return answer;
}

Json response_answer(const ResponseLog& log, bool error_case) {
  const auto events = events_json(log);
  if (error_case) return log.error() != nullptr ? error_json(*log.error()) : Json::object();
  Json answer = Json::object();
  for (const auto& e : events) {
    if (e.contains("usage")) answer["usage"] = e["usage"];
    if (e.contains("body")) answer["body"] = e["body"];
  }
  return answer;
}

}  // namespace

void run_request_case(Session& s, mgw_provider* p, const RequestCase& c, bool write_expected) {
  const auto indexed = s.build(p, c.call, c.body, true);
  const auto parsed = s.build(p, c.call, c.body, false);
  if (missing_expect(c.file, c.has_expect, write_expected, request_answer(indexed))) return;
  if (const auto refused = c.expect.find("refused"); refused != c.expect.end()) {
    if (indexed.status == MGW_OK) {
      problem("expected a refusal, but the request was built");
    } else if (const ErrorSeen* e = indexed.error.error()) {
      compare_fields(*refused, error_json(*e), "refused");
    }
    return;
  }
  if (indexed.status != MGW_OK) {
    const ErrorSeen* e = indexed.error.error();
    problem("refused (" + status_name(indexed.status) + ")" +
            (e != nullptr ? ": " + std::to_string(e->http_status) + " " + e->code + ": " + e->message : ""));
    return;
  }
  compare_request(c.expect, indexed);
  if (parsed.status == MGW_OK) {
    compare_built(indexed, parsed);
  } else {
    problem("built with the host's member index but refused without it (a 1.0 host gives none)");
  }
}

void run_response_case(Session& s, mgw_provider* p, const ResponseCase& c, bool error_case,
                       bool write_expected) {
  const auto parsed = s.parse(p, c.call, c.status, c.headers, c.body);
  const auto events = events_json(parsed.log);
  if (missing_expect(c.file, c.has_expect, write_expected, response_answer(parsed.log, error_case))) return;
  if (error_case) {
    if (events.size() != 1 || !events[0].contains("error")) {
      problem("expected one callback_error and nothing else, got " + short_dump(Json(events), 400));
      if (const ErrorSeen* e = parsed.log.error()) compare_fields(c.expect, error_json(*e), "error");
      return;
    }
    compare_fields(c.expect, events[0]["error"], "error");
    return;
  }
  if (events.size() != 2 || !events[0].contains("usage") || !events[1].contains("body")) {
    problem("expected callback_usage then callback_body, got " + short_dump(Json(events), 400));
    return;
  }
  if (const auto u = c.expect.find("usage"); u != c.expect.end()) {
    compare_fields(*u, events[0]["usage"], "usage");
  }
  if (const auto b = c.expect.find("body"); b != c.expect.end()) {
    if (const std::string d = json_difference(*b, events[1]["body"]); !d.empty()) {
      problem("the body differs from the expectation; JSON Patch from expected to actual: " + d);
    }
  }
}

void run_stream_whole(Session& s, mgw_provider* p, const StreamFixture& f) {
  std::vector<std::string_view> pieces;
  if (!f.bytes.empty()) pieces.push_back(f.bytes);
  const auto streamed = s.stream(p, f.call, pieces);
  if (!streamed.started || !f.expected) return;
  compare_events(*f.expected, events_json(streamed.log));
}

}  // namespace mgw::testkit
