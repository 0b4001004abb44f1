// Rows and records shared by the storage plugin tests (storage_conformance and
// storage_sqlite): owned copies of what a row sink receives, and records whose
// strings live as long as the object that views them.
#pragma once

#include <gtest/gtest.h>
#include <modelgw/plugin.h>
#include <modelgw/sdk.hpp>

#include <cinttypes>
#include <cstdint>
#include <cstdio>
#include <mutex>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

namespace storage_test {

// Rows copied out of the borrowed records a row sink receives.
struct Tenant {
  int64_t id = 0;
  std::string name;
  int64_t created_unix_ms = 0;
  std::string settings_json = "{}";
};

struct PromptVersion {
  int64_t tenant_id = 0;
  std::string name;
  int64_t version = 0;
  bool active = false;
  std::string template_json = R"([{"role":"system","content":"Be {{tone}}."}])";
  std::string model = "fast";
  std::string parameters_json = R"({"temperature":0.2})";
  int64_t created_unix_ms = 1000;

  // Views into this object: not callable on a temporary, whose strings would dangle.
  mgw_prompt_version_record record() const& {
    mgw_prompt_version_record r{};
    r.struct_size = sizeof r;
    r.tenant_id = tenant_id;
    r.name = mgw::str(name);
    r.version = version;
    r.active = active ? 1 : 0;
    r.template_json = mgw::str(template_json);
    r.model = mgw::str(model);
    r.parameters_json = mgw::str(parameters_json);
    r.created_unix_ms = created_unix_ms;
    return r;
  }
  mgw_prompt_version_record record() const&& = delete;
};

struct ApiKey {
  int64_t id = 0;
  int64_t tenant_id = 0;
  std::string tenant_name, key_hash, display_prefix, scopes;
  int64_t created_unix_ms = 0;
  int64_t revoked_unix_ms = 0;
};

// A usage record that owns its strings; record() views them.
struct Usage {
  std::string request_id;
  int64_t tenant_id = 0;
  int64_t key_id = 0;
  std::string alias = "fast";
  std::string provider = "openai";
  std::string upstream_model = "gpt-4o-mini";
  int64_t prompt_tokens = 0;
  int64_t completion_tokens = 0;
  int64_t total_tokens = 0;
  int32_t http_status = 200;
  std::string error_code;
  int64_t latency_us = 0;
  int64_t ttft_us = -1;
  int32_t streamed = 0;
  int64_t created_unix_ms = 0;
  std::string prompt_name;
  int64_t prompt_version = 0;
  std::string pii_action;
  std::string pii_findings;
  // ABI 1.2
  int64_t seq = 0;  // read back only
  std::string feature;
  int64_t cached_prompt_tokens = 0;
  int64_t cost_micros = 0;
  std::string reason;
  std::vector<mgw_ledger_charge> charges;  // inserted only
  // ABI 1.6
  std::string trace_id;
  // ABI 1.8: what a record read back without one has
  std::string operation = "chat.completions";

  // Views into this object: not callable on a temporary, whose strings would dangle.
  mgw_usage_record record() const& {
    mgw_usage_record r{};
    r.struct_size = sizeof r;
    r.request_id = mgw::str(request_id);
    r.tenant_id = tenant_id;
    r.key_id = key_id;
    r.alias = mgw::str(alias);
    r.provider = mgw::str(provider);
    r.upstream_model = mgw::str(upstream_model);
    r.prompt_tokens = prompt_tokens;
    r.completion_tokens = completion_tokens;
    r.total_tokens = total_tokens;
    r.http_status = http_status;
    r.error_code = mgw::str(error_code);
    r.latency_us = latency_us;
    r.ttft_us = ttft_us;
    r.streamed = streamed;
    r.created_unix_ms = created_unix_ms;
    r.prompt_name = mgw::str(prompt_name);
    r.prompt_version = prompt_version;
    r.pii_action = mgw::str(pii_action);
    r.pii_findings = mgw::str(pii_findings);
    r.feature = mgw::str(feature);
    r.cached_prompt_tokens = cached_prompt_tokens;
    r.cost_micros = cost_micros;
    r.reason = mgw::str(reason);
    r.charges = charges.empty() ? nullptr : charges.data();
    r.charge_count = charges.size();
    r.trace_id = mgw::str(trace_id);
    r.operation = mgw::str(operation);
    return r;
  }

  mgw_usage_record record() const&& = delete;

  // Equal as stored: the read-only seq and the insert-only charges aside.
  bool operator==(const Usage& o) const {
    auto key = [](const Usage& u) {
      return std::tie(u.request_id, u.tenant_id, u.key_id, u.alias, u.provider, u.upstream_model,
                      u.prompt_tokens, u.completion_tokens, u.total_tokens, u.http_status, u.error_code,
                      u.latency_us, u.ttft_us, u.streamed, u.created_unix_ms, u.prompt_name, u.prompt_version,
                      u.pii_action, u.pii_findings, u.feature, u.cached_prompt_tokens, u.cost_micros,
                      u.reason, u.trace_id, u.operation);
    };
    return key(*this) == key(o);
  }
};

inline std::string s(mgw_str text) {
  return std::string(mgw::view(text));
}

struct Budget {
  int64_t id = 0;
  int64_t tenant_id = 0;
  std::string scope, subject, name, window;
  int64_t limit_micros = 0;
  int64_t created_unix_ms = 0;
};

struct Group {
  std::string key;
  int64_t requests = 0, prompt_tokens = 0, completion_tokens = 0, total_tokens = 0, cost_micros = 0;
};

struct RowRecorder {
  std::vector<Budget> budgets;
  std::vector<Group> groups;
  std::vector<Tenant> tenants;
  std::vector<ApiKey> keys;
  std::vector<Usage> usage;
  std::vector<PromptVersion> prompts;

  // Callbacks set by name, so one a later ABI adds stays NULL. Idempotency
  // rows and audit events: their tests have sinks of their own.
  mgw_row_sink sink = make_sink(this);

 private:
  static mgw_row_sink make_sink(RowRecorder* recorder) {
    mgw_row_sink sink{};
    sink.struct_size = sizeof sink;
    sink.host_data = recorder;
    sink.callback_tenant = [](void* self, const mgw_tenant_record* r) {
      static_cast<RowRecorder*>(self)->tenants.push_back(
          {r->id, s(r->name), r->created_unix_ms, s(r->settings_json)});
    };
    sink.callback_api_key = [](void* self, const mgw_api_key_record* r) {
      static_cast<RowRecorder*>(self)->keys.push_back({r->id, r->tenant_id, s(r->tenant_name), s(r->key_hash),
                                                       s(r->display_prefix), s(r->scopes), r->created_unix_ms,
                                                       r->revoked_unix_ms});
    };
    sink.callback_usage = [](void* self, const mgw_usage_record* r) {
      Usage u;
      u.request_id = s(r->request_id);
      u.tenant_id = r->tenant_id;
      u.key_id = r->key_id;
      u.alias = s(r->alias);
      u.provider = s(r->provider);
      u.upstream_model = s(r->upstream_model);
      u.prompt_tokens = r->prompt_tokens;
      u.completion_tokens = r->completion_tokens;
      u.total_tokens = r->total_tokens;
      u.http_status = r->http_status;
      u.error_code = s(r->error_code);
      u.latency_us = r->latency_us;
      u.ttft_us = r->ttft_us;
      u.streamed = r->streamed;
      u.created_unix_ms = r->created_unix_ms;
      u.prompt_name = s(r->prompt_name);
      u.prompt_version = r->prompt_version;
      u.pii_action = s(r->pii_action);
      u.pii_findings = s(r->pii_findings);
      u.seq = r->seq;
      u.feature = s(r->feature);
      u.cached_prompt_tokens = r->cached_prompt_tokens;
      u.cost_micros = r->cost_micros;
      u.reason = s(r->reason);
      if (MGW_HAS_FIELD(r, mgw_usage_record, trace_id)) u.trace_id = s(r->trace_id);
      if (MGW_HAS_FIELD(r, mgw_usage_record, operation)) u.operation = s(r->operation);
      static_cast<RowRecorder*>(self)->usage.push_back(std::move(u));
    };
    sink.callback_prompt_version = [](void* self, const mgw_prompt_version_record* r) {
      static_cast<RowRecorder*>(self)->prompts.push_back({r->tenant_id, s(r->name), r->version,
                                                          r->active != 0, s(r->template_json), s(r->model),
                                                          s(r->parameters_json), r->created_unix_ms});
    };
    sink.callback_budget = [](void* self, const mgw_budget_record* r) {
      static_cast<RowRecorder*>(self)->budgets.push_back({r->id, r->tenant_id, s(r->scope), s(r->subject),
                                                          s(r->name), s(r->window), r->limit_micros,
                                                          r->created_unix_ms});
    };
    sink.callback_usage_group = [](void* self, const mgw_usage_group* r) {
      static_cast<RowRecorder*>(self)->groups.push_back(
          {s(r->key), r->requests, r->prompt_tokens, r->completion_tokens, r->total_tokens, r->cost_micros});
    };
    return sink;
  }
};

// A well-formed stand-in for a key's SHA-256: 64 lowercase hex digits.
inline std::string fake_hash(uint64_t n) {
  char buffer[65];
  std::snprintf(buffer, sizeof buffer, "%064" PRIx64, n);
  return buffer;
}

// A key record whose strings live as long as this object.
struct NewKey {
  int64_t tenant_id = 0;
  std::string key_hash;
  std::string display_prefix = "mgw_abcd";
  std::string scopes = "chat";
  int64_t created_unix_ms = 1000;

  // Views into this object: not callable on a temporary, whose strings would dangle.
  mgw_api_key_record record() const& {
    mgw_api_key_record r{};
    r.struct_size = sizeof r;
    r.tenant_id = tenant_id;
    r.key_hash = mgw::str(key_hash);
    r.display_prefix = mgw::str(display_prefix);
    r.scopes = mgw::str(scopes);
    r.created_unix_ms = created_unix_ms;
    return r;
  }
  mgw_api_key_record record() const&& = delete;
};

// Collects failures from worker threads (gtest assertions belong on the main thread).
struct Failures {
  std::mutex mutex;
  std::vector<std::string> lines;
  void add(const std::string& line) {
    std::lock_guard lock(mutex);
    lines.push_back(line);
  }
  std::string first() {
    std::lock_guard lock(mutex);
    return lines.empty() ? std::string() : lines.front();
  }
};

}  // namespace storage_test
