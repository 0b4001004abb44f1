#include "importer/modelgw_yaml.h"

#include <cstdio>
#include <sstream>

namespace modelgw::importer {
namespace {

// "# " before every line of `note`, at `indent`.
void write_note(std::ostringstream& y, const std::string& note, const char* indent) {
  if (note.empty()) return;
  std::size_t start = 0;
  for (;;) {
    const auto end = note.find('\n', start);
    y << indent << "# " << note.substr(start, end == std::string::npos ? std::string::npos : end - start)
      << "\n";
    if (end == std::string::npos) break;
    start = end + 1;
  }
}

void write_provider(std::ostringstream& y, const DraftProvider& p) {
  write_note(y, p.note, "  ");
  y << "  " << yaml_string(p.name) << ":\n"
    << "    plugin: " << p.plugin << "\n"
    << "    base_url: " << yaml_string(p.base_url, true) << "\n"
    << "    api_key: " << yaml_string(p.api_key, true) << "\n";
  if (!p.organization.empty()) y << "    organization: " << yaml_string(p.organization, true) << "\n";
  if (!p.headers.empty()) {
    y << "    headers:\n";
    for (const auto& [name, value] : p.headers)
      y << "      " << yaml_string(name) << ": " << yaml_string(value, true) << "\n";
  }
  if (p.first_byte_timeout_ms) y << "    first_byte_timeout_ms: " << *p.first_byte_timeout_ms << "\n";
  if (p.timeout_ms) y << "    timeout_ms: " << *p.timeout_ms << "\n";
}

void write_model(std::ostringstream& y, const DraftModel& m) {
  write_note(y, m.note, "  ");
  y << "  " << yaml_string(m.alias) << ":\n"
    << "    provider: " << yaml_string(m.provider) << "\n"
    << "    model: " << yaml_string(m.model) << "\n";
  if (m.kind != "chat") y << "    kind: " << m.kind << "\n";
  if (m.dimensions > 0) y << "    dimensions: " << m.dimensions << "\n";
  if (m.max_inputs > 0) y << "    max_inputs: " << m.max_inputs << "\n";
  if (m.context_window > 0) y << "    context_window: " << m.context_window << "\n";
  if (m.max_output_tokens > 0) y << "    max_output_tokens: " << m.max_output_tokens << "\n";
  if (!m.tokenizer.empty()) y << "    tokenizer: " << m.tokenizer << "\n";
  if (m.drop_unsupported_params) y << "    drop_unsupported_params: true\n";
  if (m.prices) {
    y << "    prices: { input: " << usd_text(m.prices->input) << ", output: " << usd_text(m.prices->output)
      << " }\n";
  }
}

}  // namespace

std::string yaml_string(std::string_view value, bool env_text) {
  std::string out = "\"";
  for (std::size_t i = 0; i < value.size(); ++i) {
    const char c = value[i];
    if (!env_text && c == '$' && i + 1 < value.size() && value[i + 1] == '{') {
      out += "$${";
      ++i;
      continue;
    }
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) {
      char hex[8];
      std::snprintf(hex, sizeof hex, "\\x%02x", static_cast<unsigned>(static_cast<unsigned char>(c)));
      out += hex;
    } else {
      out += c;
    }
  }
  return out + "\"";
}

std::string usd_text(std::int64_t micros) {
  std::string text = std::to_string(micros / 1'000'000);
  std::int64_t fraction = micros % 1'000'000;
  if (fraction == 0) return text;
  std::string digits = std::to_string(fraction);
  digits.insert(0, 6 - digits.size(), '0');
  while (!digits.empty() && digits.back() == '0') digits.pop_back();
  return text + "." + digits;
}

std::string write_modelgw_yaml(const Draft& d, std::string_view source_name) {
  std::ostringstream y;
  y << "# modelgw configuration written by `modelgw import litellm` from " << source_name << ".\n"
    << "# config/modelgw.example.yaml documents every key. Check it with: modelgw check-config FILE\n"
    << "server:\n"
    << "  listen: " << yaml_string(d.listen) << "  # LiteLLM's port: clients keep their base URL\n"
    << "storage:\n"
    << "  plugin: sqlite\n"
    << "  options:\n"
    << "    path: " << yaml_string(d.state_dir + "/modelgw.db") << "\n"
    << "plugins:\n"
    << "  dir: " << yaml_string(d.plugins_dir) << "\n"
    << "usage:\n"
    << "  journal_path: " << yaml_string(d.state_dir + "/usage.journal") << "\n";
  if (!d.logging_level.empty()) y << "logging:\n  level: " << d.logging_level << "\n";
  if (d.key_requests_per_minute || d.key_tokens_per_minute) {
    y << "rate_limits:\n";
    if (d.key_requests_per_minute) y << "  key_requests_per_minute: " << *d.key_requests_per_minute << "\n";
    if (d.key_tokens_per_minute) y << "  key_tokens_per_minute: " << *d.key_tokens_per_minute << "\n";
  }
  if (d.retry_max_attempts || d.retry_base_ms) {
    y << "retry:\n";
    if (d.retry_max_attempts) y << "  max_attempts: " << *d.retry_max_attempts << "\n";
    if (d.retry_base_ms) y << "  base_ms: " << *d.retry_base_ms << "\n";
  }
  y << "providers:\n";
  for (const auto& p : d.providers) write_provider(y, p);
  y << "catalog:\n";
  for (const auto& m : d.models) write_model(y, m);
  for (const auto& t : d.tiers) {
    write_note(y, t.note, "  ");
    y << "  " << yaml_string(t.alias) << ":\n    route: [";
    for (std::size_t i = 0; i < t.route.size(); ++i) y << (i ? ", " : "") << yaml_string(t.route[i]);
    y << "]\n";
  }
  return y.str();
}

}  // namespace modelgw::importer
