// The upstream exchange stage: one model of the route, tried with retries
// (spec 7.4) within the request's retry budget. Each try lets the model's
// provider plugin build the vendor request, sends it over a pooled
// connection, and relays the answer (whole, or streamed through SseRelay).
#pragma once

#include "chat/chat_request.h"
#include "chat/outcome.h"
#include "chat/retry_policy.h"
#include "chat/route_plan.h"
#include "chat/secret_redactor.h"
#include "http/server_call.h"
#include "upstream/upstream_call.h"

#include <chrono>
#include <span>
#include <string_view>
#include <vector>

namespace modelgw::chat {

struct AttemptContext {
  http::ServerCall& call;
  const ChatRequest& request;
  const RoutePlan& plan;
  const RetryPolicy& policy;
  const SecretRedactor& redactor;
  std::chrono::steady_clock::time_point budget_end;
  Outcome& outcome;
  std::string_view body = {};  // the request text, set by try_model
  // The door's own request and API (plugin.h, "Native operations"), for a
  // model whose provider serves that API natively; empty: chat only.
  std::string_view native_operation = {};
  std::string_view native_body = {};
  std::string_view native_limit_member = {};  // FrontDoor::output_limit_member
  // The client's headers the door passes on with a native call (borrowed
  // from the request for the call's life).
  std::span<const mgw_header> client_headers = {};
  // Set by a chain that joins several calls' answers (embeddings' batches):
  // a whole answer the plugin parsed is kept here instead of sent.
  std::string* collected = nullptr;
};

// The client's headers `door` passes on to a provider that serves its API
// natively (FrontDoor::forwarded_headers), as views into the call's request.
std::vector<mgw_header> forwarded_client_headers(const http::ServerCall& call, const FrontDoor* door);

// True when the call is settled (answered, or the client left); false when
// the next model of the route should be tried, with the retryable failure in
// `last_error`.
net::Task<bool> try_model(AttemptContext& a, std::string_view body, errors::ApiError& last_error);

}  // namespace modelgw::chat
