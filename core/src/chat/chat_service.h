// POST /v1/chat/completions: validate, resolve the alias to the models that
// may serve it, then for each in turn let its provider plugin build the
// upstream request, send it (retrying per spec 7.4 within the request's retry
// budget), and relay the answer, plain or streamed. Every authenticated call
// leaves exactly one usage record.
#pragma once

#include "auth/principal.h"
#include "catalog/catalog.h"
#include "chat/chat_request.h"
#include "chat/retry_policy.h"
#include "chat/route_plan.h"
#include "chat/secret_redactor.h"
#include "config/config.h"
#include "http/call.h"
#include "pii/guard.h"
#include "prompts/prompt_store.h"
#include "upstream/exchange.h"
#include "usage/usage_writer.h"

#include <functional>
#include <memory>
#include <string_view>

namespace modelgw::chat {

struct ChatDeps {
  const catalog::Catalog& catalog;
  usage::UsageWriter& usage;
  const SecretRedactor& redactor;
  std::size_t max_body_bytes;
  config::RetryConfig retry;
  prompts::PromptStore* prompts = nullptr;  // named prompts; nullptr: requests naming one are refused
  const pii::Guard* pii = nullptr;          // the PII step; nullptr: no scanning
  // The tenant's PII policy (cached by the tenant gate); required with `pii`.
  std::function<std::shared_ptr<const pii::Policy>(const auth::Principal&)> pii_policy;
};

class ChatService {
 public:
  explicit ChatService(ChatDeps deps) : deps_(deps), policy_(deps.retry) {}

  void handle(http::Call& call, const auth::Principal& principal);

 private:
  struct Outcome;
  // How one try at one model ended.
  struct Attempt {
    enum Kind { served, failed, cancelled } kind = served;
    http::ApiError error;  // for `failed`: nothing was sent to the client yet
  };

  void serve(http::Call& call, Outcome& outcome);
  // The PII step: false when the request was answered (blocked, or the mode failed).
  bool apply_pii_policy(http::Call& call, ChatRequest& request, std::string& body, Outcome& outcome);
  // Tries one model, with retries; false when the next model should be tried
  // (the failure, retryable, is left in `last_error`).
  bool try_route(http::Call& call, const ChatRequest& request, std::string_view body, const RoutePlan& plan,
                 std::chrono::steady_clock::time_point budget_end, Outcome& outcome,
                 http::ApiError& last_error);
  Attempt attempt_once(http::Call& call, const ChatRequest& request, const RoutePlan& plan,
                       const mgw_call_context& ctx, const upstream::OutgoingRequest& outgoing,
                       Outcome& outcome);
  Attempt relay_whole(http::Call& call, const catalog::ModelRoute& route, const mgw_call_context& ctx,
                      upstream::Exchange& exchange, Outcome& outcome);
  Attempt relay_stream(http::Call& call, const RoutePlan& plan, const mgw_call_context& ctx,
                       upstream::Exchange& exchange, Outcome& outcome);
  void answer_error(http::Call& call, http::ApiError error, Outcome& outcome) const;

  ChatDeps deps_;
  RetryPolicy policy_;
};

}  // namespace modelgw::chat
