#include "usage/usage_json.h"

#include "budget/budget_report.h"
#include "budget/money.h"

#include <charconv>

namespace modelgw::usage {

using nlohmann::json;

namespace {

json money(std::int64_t micros) {
  return budget::format_micros(micros);
}

}  // namespace

json record_json(const plugins::UsageRow& r) {
  json j = {
      {"request_id", r.request_id},
      // The W3C trace the request was served under; null for records stored
      // before trace ids were kept.
      {"trace_id", r.trace_id.empty() ? json() : json(r.trace_id)},
      // The API the request came through: "chat.completions", "responses".
      {"operation", r.operation},
      {"created", r.created_unix_ms / 1000},
      {"created_at", budget::utc_timestamp_ms(r.created_unix_ms)},
      {"model", r.alias.empty() ? json() : json(r.alias)},
      {"provider", r.provider.empty() ? json() : json(r.provider)},
      {"upstream_model", r.upstream_model.empty() ? json() : json(r.upstream_model)},
      {"feature", r.feature.empty() ? json() : json(r.feature)},
      {"key_id", r.key_id == 0 ? json() : json(r.key_id)},
      {"status", r.http_status},
      {"error_code", r.error_code.empty() ? json() : json(r.error_code)},
      {"stream", r.streamed},
      {"prompt_tokens", r.prompt_tokens},
      {"cached_prompt_tokens", r.cached_prompt_tokens},
      {"completion_tokens", r.completion_tokens},
      {"total_tokens", r.total_tokens},
      {"cost", money(r.cost_micros)},
      {"cost_micros", r.cost_micros},
      {"currency", "USD"},
      {"prices",
       {{"input", money(r.price_input_micros)},
        {"output", money(r.price_output_micros)},
        {"cached_input", money(r.price_cached_micros)}}},
      {"latency_ms", r.latency_us / 1000},
      {"ttft_ms", r.ttft_us < 0 ? json() : json(r.ttft_us / 1000)},
      {"prompt",
       r.prompt_name.empty() ? json() : json{{"name", r.prompt_name}, {"version", r.prompt_version}}},
  };
  if (r.pii_action.empty()) {
    j["pii"] = nullptr;
  } else {
    json findings = json::parse(r.pii_findings, nullptr, false);
    j["pii"] = {{"action", r.pii_action}, {"findings", findings.is_object() ? findings : json::object()}};
  }
  return j;
}

json sums_json(const plugins::UsageGroup& g) {
  return json{{"requests", g.requests},
              {"prompt_tokens", g.prompt_tokens},
              {"completion_tokens", g.completion_tokens},
              {"total_tokens", g.total_tokens},
              {"cost", money(g.cost_micros)},
              {"cost_micros", g.cost_micros},
              {"currency", "USD"}};
}

json group_key_json(std::string_view group_by, const std::string& key) {
  if (group_by == "hour" || group_by == "day" || group_by == "key") {
    std::int64_t n = 0;
    std::from_chars(key.data(), key.data() + key.size(), n);
    if (group_by == "key") return n == 0 ? json() : json(n);
    const std::string t = budget::utc_timestamp(n);
    return group_by == "day" ? json(t.substr(0, 10)) : json(t);
  }
  if (key.empty()) return nullptr;
  return key;
}

}  // namespace modelgw::usage
