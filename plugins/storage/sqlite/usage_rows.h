// What usage.cpp and usage_query.cpp share: the columns of a usage record,
// in the order emit_usage() reads them.
#pragma once

#include <modelgw/plugin.h>

#include "connection.h"

namespace mgw_sqlite {

#define MGW_USAGE_SELECT_COLUMNS                                                                         \
  "request_id, tenant_id, key_id, alias, provider, upstream_model, prompt_tokens, completion_tokens, "   \
  "total_tokens, http_status, error_code, latency_us, ttft_us, streamed, created_unix_ms, prompt_name, " \
  "prompt_version, pii_action, pii_findings, feature, cached_prompt_tokens, cost_micros, "               \
  "price_input_micros, price_output_micros, price_cached_micros, reason, id, trace_id, operation"

// usage_postings.kind: the filter column a posting is for (migration 13).
constexpr int kPostingModel = 1;    // value: the alias
constexpr int kPostingFeature = 2;  // value: the feature, '' for none
constexpr int kPostingKey = 3;      // value: the key id, in decimal

// One row of MGW_USAGE_SELECT_COLUMNS to the sink's callback_usage.
void emit_usage(const Statement& row, const mgw_row_sink* out);

}  // namespace mgw_sqlite
