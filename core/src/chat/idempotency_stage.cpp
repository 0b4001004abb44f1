// The idempotency stage (idempotency/ does the keeping): its start claims
// the request's Idempotency-Key, or joins the flight that holds it, or
// replays the answer kept with it; its end keeps a complete answer with the
// key or frees the key.
#include "chat/chat_endpoint.h"

#include "idempotency/idempotency_key.h"
#include "logging/request_log.h"

namespace modelgw::chat {

net::Task<bool> ChatEndpoint::take_idempotency_key(http::ServerCall& call, std::string key,
                                                   const nlohmann::json& body, Outcome& outcome) {
  if (deps_.idempotency == nullptr) {
    answer_error(
        call,
        errors::ApiError{422, "unsupported_parameter",
                         "this gateway's storage does not keep idempotency keys; send the request without "
                         "Idempotency-Key",
                         "Idempotency-Key"},
        outcome);
    co_return false;
  }
  // A key is the tenant's across doors: the same body sent to another API
  // is another request.
  const std::string digest = idempotency::request_digest(
      body, outcome.door == nullptr ? outcome.row.feature
                                    : std::string(outcome.door->operation()) + "\n" + outcome.row.feature);
  auto step = co_await deps_.idempotency->begin(call, outcome.row.tenant_id, std::move(key), digest);
  if (step.flight) {
    outcome.idempotent = std::move(step.flight);
    co_return true;
  }
  if (step.answered) {
    // The first request's answer: it was recorded and charged once, there.
    outcome.recorded = false;
    logging::for_request(call.request_id())
        .info("tenant={} replayed the answer of a request with the same Idempotency-Key",
              outcome.principal->tenant_name);
  } else if (step.refusal) {
    answer_error(call, std::move(*step.refusal), outcome);
  } else {
    outcome.row.error_code = "client_disconnected";
  }
  co_return false;
}

bool keeps_answer(const http::ServerCall& call, const Outcome& outcome) {
  // Only a complete, successful answer is kept for retries (README): any
  // other outcome frees the key, so a retry makes the call (spec 4.1).
  return call.status_sent() == 200 && outcome.row.error_code.empty() &&
         (!call.streaming() || call.finished());
}

net::Task<void> ChatEndpoint::finish_idempotency_key(http::ServerCall& call, Outcome& outcome, bool keep) {
  // The answer is complete: the flight stops watching it (it may be freed
  // in finish()). The client gets it first; keeping it is the store's write,
  // which the connection does not wait for.
  call.set_tap(nullptr);
  (void)co_await call.flush();
  deps_.idempotency->finish(std::move(outcome.idempotent), keep);
}

}  // namespace modelgw::chat
