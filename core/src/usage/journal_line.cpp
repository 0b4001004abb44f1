#include "usage/journal_line.h"

#include <nlohmann/json.hpp>

namespace modelgw::usage {

using nlohmann::json;

void append_journal_line(const plugins::UsageRow& r, std::string& out) {
  json charges = json::array();
  for (const auto& c : r.charges) charges.push_back({c.lease_id, c.amount});
  const json j = {{"request_id", r.request_id},
                  {"tenant_id", r.tenant_id},
                  {"key_id", r.key_id},
                  {"alias", r.alias},
                  {"provider", r.provider},
                  {"upstream_model", r.upstream_model},
                  {"prompt_tokens", r.prompt_tokens},
                  {"completion_tokens", r.completion_tokens},
                  {"total_tokens", r.total_tokens},
                  {"http_status", r.http_status},
                  {"error_code", r.error_code},
                  {"latency_us", r.latency_us},
                  {"ttft_us", r.ttft_us},
                  {"streamed", r.streamed},
                  {"created_unix_ms", r.created_unix_ms},
                  {"prompt_name", r.prompt_name},
                  {"prompt_version", r.prompt_version},
                  {"pii_action", r.pii_action},
                  {"pii_findings", r.pii_findings},
                  {"feature", r.feature},
                  {"cached_prompt_tokens", r.cached_prompt_tokens},
                  {"cost_micros", r.cost_micros},
                  {"price_input_micros", r.price_input_micros},
                  {"price_output_micros", r.price_output_micros},
                  {"price_cached_micros", r.price_cached_micros},
                  {"reason", r.reason},
                  {"charges", std::move(charges)},
                  {"trace_id", r.trace_id},
                  {"operation", r.operation}};
  // Strings the gateway did not build (a model name, a feature) may hold
  // invalid UTF-8; replacing it keeps the line writable and readable.
  out += j.dump(-1, ' ', false, json::error_handler_t::replace);
  out += '\n';
}

std::optional<plugins::UsageRow> parse_journal_line(std::string_view line) {
  const json j = json::parse(line, nullptr, /*allow_exceptions=*/false);
  if (!j.is_object()) return std::nullopt;
  try {
    plugins::UsageRow r;
    r.request_id = j.at("request_id").get<std::string>();
    if (r.request_id.empty()) return std::nullopt;
    r.tenant_id = j.at("tenant_id").get<std::int64_t>();
    r.key_id = j.at("key_id").get<std::int64_t>();
    r.alias = j.at("alias").get<std::string>();
    r.provider = j.at("provider").get<std::string>();
    r.upstream_model = j.at("upstream_model").get<std::string>();
    r.prompt_tokens = j.at("prompt_tokens").get<std::int64_t>();
    r.completion_tokens = j.at("completion_tokens").get<std::int64_t>();
    r.total_tokens = j.at("total_tokens").get<std::int64_t>();
    r.http_status = j.at("http_status").get<int>();
    r.error_code = j.at("error_code").get<std::string>();
    r.latency_us = j.at("latency_us").get<std::int64_t>();
    r.ttft_us = j.at("ttft_us").get<std::int64_t>();
    r.streamed = j.at("streamed").get<bool>();
    r.created_unix_ms = j.at("created_unix_ms").get<std::int64_t>();
    r.prompt_name = j.at("prompt_name").get<std::string>();
    r.prompt_version = j.at("prompt_version").get<std::int64_t>();
    r.pii_action = j.at("pii_action").get<std::string>();
    r.pii_findings = j.at("pii_findings").get<std::string>();
    r.feature = j.at("feature").get<std::string>();
    r.cached_prompt_tokens = j.at("cached_prompt_tokens").get<std::int64_t>();
    r.cost_micros = j.at("cost_micros").get<std::int64_t>();
    r.price_input_micros = j.at("price_input_micros").get<std::int64_t>();
    r.price_output_micros = j.at("price_output_micros").get<std::int64_t>();
    r.price_cached_micros = j.at("price_cached_micros").get<std::int64_t>();
    r.reason = j.at("reason").get<std::string>();
    for (const auto& c : j.at("charges")) {
      r.charges.push_back(mgw_ledger_charge{c.at(0).get<std::int64_t>(), c.at(1).get<std::int64_t>()});
    }
    // Lines journaled before trace ids were recorded have none.
    if (auto it = j.find("trace_id"); it != j.end()) r.trace_id = it->get<std::string>();
    // Lines journaled before operations were recorded came through chat
    // completions, the only API there was: they keep the default.
    if (auto it = j.find("operation"); it != j.end() && !it->get<std::string>().empty())
      r.operation = it->get<std::string>();
    return r;
  } catch (const json::exception&) {
    return std::nullopt;
  }
}

}  // namespace modelgw::usage
