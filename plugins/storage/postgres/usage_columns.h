// The columns of a usage record, in the order emit_usage() reads them; apart
// from usage_rows.h so that SQL can be built without libpqxx (usage_sql.cpp).
#pragma once

#define MGW_USAGE_SELECT_COLUMNS                                                                         \
  "request_id, tenant_id, key_id, alias, provider, upstream_model, prompt_tokens, completion_tokens, "   \
  "total_tokens, http_status, error_code, latency_us, ttft_us, streamed, created_unix_ms, prompt_name, " \
  "prompt_version, pii_action, pii_findings, feature, cached_prompt_tokens, cost_micros, "               \
  "price_input_micros, price_output_micros, price_cached_micros, reason, id, trace_id, operation"
