#include "chat/record.h"

#include "chat/outcome_metrics.h"
#include "logging/access_log.h"
#include "logging/request_log.h"

#include <chrono>

namespace modelgw::chat {

void open_outcome(Outcome& outcome, const http::ServerCall& call, const auth::Principal& principal) {
  using namespace std::chrono;
  outcome.principal = &principal;
  outcome.row.request_id = call.request_id();
  outcome.row.trace_id = call.trace().trace_id;
  outcome.row.tenant_id = principal.tenant_id;
  outcome.row.key_id = principal.key_id;
  outcome.row.created_unix_ms = duration_cast<milliseconds>(system_clock::now().time_since_epoch()).count();
}

void answer_error(http::ServerCall& call, errors::ApiError error, Outcome& outcome,
                  const SecretRedactor& redactor) {
  error.message = redactor.redact(std::move(error.message));
  if (outcome.shaper && outcome.door != nullptr && !error.param.empty()) {
    // A later stage named a chat parameter: the client sent the door's.
    std::string named = outcome.door->param_name(error.param);
    if (named != error.param) {
      const std::string quoted = "'" + error.param + "'";
      for (auto at = error.message.find(quoted); at != std::string::npos;
           at = error.message.find(quoted, at + named.size() + 2))
        error.message.replace(at, quoted.size(), "'" + named + "'");
      error.param = std::move(named);
    }
  }
  outcome.row.error_code = error.code;
  call.send_error(error);  // a 413 closes the connection: its unread body cannot be skipped safely
}

void record_outcome(Outcome& outcome, http::ServerCall& call, usage::UsageWriter& usage) {
  auto& row = outcome.row;
  // 499 (as nginx logs it): the client left before any answer could be sent.
  const bool left = row.error_code == "client_disconnected";
  row.http_status = call.status_sent() != 0 ? call.status_sent() : (left ? 499 : 500);
  row.latency_us = call.elapsed_us();
  row.streamed = outcome.streamed;
  if (row.total_tokens == 0) row.total_tokens = row.prompt_tokens + row.completion_tokens;
  http::AccessNote& note = call.access_note();
  note.alias = row.alias;
  note.provider = row.provider;
  if (!row.error_code.empty()) note.error_code = row.error_code;  // a stream's error is not a send_error
  note.tokens = row.total_tokens;
  note.attempts = outcome.attempts;
  note.pii = row.pii_action;
  // The access line is the request's one line; without it, this line is.
  if (!logging::access_log_enabled()) {
    logging::for_request(call.request_id())
        .info(
            "chat: tenant={} model={} status={} error={} tokens={} attempts={} latency_us={} pii={} "
            "trace_id={}",
            outcome.principal->tenant_name, row.alias.empty() ? "-" : row.alias, row.http_status,
            row.error_code.empty() ? "-" : row.error_code, row.total_tokens, outcome.attempts, row.latency_us,
            row.pii_action.empty() ? "-" : row.pii_action, row.trace_id);
  }
  observe_outcome(outcome.metrics, outcome);
  usage.enqueue(std::move(row));
}

}  // namespace modelgw::chat
