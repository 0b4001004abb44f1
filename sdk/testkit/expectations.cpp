#include "expectations.h"

#include "findings.h"

namespace mgw::testkit {

Json usage_json(const mgw_usage& u) {
  Json j = {{"prompt_tokens", u.prompt_tokens},
            {"completion_tokens", u.completion_tokens},
            {"total_tokens", u.total_tokens}};
  if (u.cached_prompt_tokens != 0) j["cached_prompt_tokens"] = u.cached_prompt_tokens;
  if (u.cache_write_prompt_tokens != 0)
    j["cache_write_prompt_tokens"] = u.cache_write_prompt_tokens;  // ABI 1.11
  return j;
}

Json error_json(const ErrorSeen& e) {
  Json j = {{"http_status", e.http_status},
            {"code", e.code},
            {"message", e.message},
            {"retryable", e.retryable},
            {"retry_after_ms", e.retry_after_ms}};
  if (!e.param.empty()) j["param"] = e.param;
  return j;
}

std::vector<Json> events_json(const ResponseLog& log) {
  std::vector<Json> out;
  for (const auto& e : log.events) {
    switch (e.kind) {
      case Emitted::Kind::body:
      case Emitted::Kind::chunk: {
        const char* key = e.kind == Emitted::Kind::body ? "body" : "chunk";
        out.push_back(Json{{key, e.json ? *e.json : Json(e.text)}});
        break;
      }
      case Emitted::Kind::usage:
        out.push_back(Json{{"usage", usage_json(e.usage)}});
        break;
      case Emitted::Kind::error:
        out.push_back(Json{{"error", error_json(e.error)}});
        break;
    }
  }
  return out;
}

void compare_fields(const Json& expect, const Json& actual, const std::string& what) {
  for (const auto& [key, want] : expect.items()) {
    const auto got = actual.find(key);
    if (key == "param" && want == "" && got == actual.end()) continue;
    if ((key == "cached_prompt_tokens" || key == "cache_write_prompt_tokens") && want == 0 &&
        got == actual.end())
      continue;
    if (got == actual.end()) {
      problem(what + "." + key + ": expected " + short_dump(want, 200) + ", got nothing");
    } else if (*got != want) {
      problem(what + "." + key + ": expected " + short_dump(want, 200) + ", got " + short_dump(*got, 200));
    }
  }
}

namespace {

std::string kind_of(const Json& event) {
  return event.is_object() && !event.empty() ? event.begin().key() : "?";
}

}  // namespace

void compare_events(const std::vector<Json>& expected, const std::vector<Json>& actual) {
  std::string want_kinds;
  std::string got_kinds;
  for (const auto& e : expected) want_kinds += (want_kinds.empty() ? "" : ",") + kind_of(e);
  for (const auto& e : actual) got_kinds += (got_kinds.empty() ? "" : ",") + kind_of(e);
  if (want_kinds != got_kinds) {
    problem("expected the events [" + want_kinds + "], got [" + got_kinds + "]");
  }
  for (std::size_t i = 0; i < expected.size() && i < actual.size(); ++i) {
    const std::string kind = kind_of(expected[i]);
    if (kind != kind_of(actual[i])) continue;
    const std::string what = "event " + std::to_string(i + 1) + " (" + kind + ")";
    const Json& want = expected[i].begin().value();
    const Json& got = actual[i].begin().value();
    if (kind == "chunk" || kind == "body") {
      if (const std::string d = json_difference(want, got); !d.empty()) {
        problem(what + " differs from the expectation; JSON Patch from expected to actual: " + d);
      }
    } else if (want.is_object() && got.is_object()) {
      compare_fields(want, got, what);
    }
  }
}

std::string first_difference(const std::vector<Json>& reference, const std::vector<Json>& other) {
  for (std::size_t i = 0; i < reference.size() && i < other.size(); ++i) {
    if (reference[i] != other[i]) {
      return "event " + std::to_string(i + 1) + " differs: " + short_dump(reference[i], 200) + " vs " +
             short_dump(other[i], 200);
    }
  }
  if (reference.size() != other.size()) {
    return std::to_string(reference.size()) + " events vs " + std::to_string(other.size());
  }
  return {};
}

}  // namespace mgw::testkit
