// POST /v1/chat/completions and every front door on it (front_door.h), one
// chain of stages. chat_endpoint.cpp holds the chain's order; each stage
// with both its start and its end is one file: read_stage.cpp (size,
// headers, parse, the door's translation, checks), idempotency_stage.cpp (claim
// and finish), pii_stage.cpp, spend_stage.cpp (the request-rate hold, the
// spend hold and the settle), route_plan.cpp, upstream_attempt.cpp (with
// sse_relay.cpp), record.cpp (usage record and metrics). Every authenticated
// call leaves exactly one usage record.
#pragma once

#include "audit/audit_log.h"
#include "auth/principal.h"
#include "budget/admission.h"
#include "catalog/catalog.h"
#include "chat/chat_request.h"
#include "chat/front_door.h"
#include "chat/outcome.h"
#include "chat/retry_policy.h"
#include "chat/route_plan.h"
#include "chat/secret_redactor.h"
#include "config/config.h"
#include "http/server_call.h"
#include "idempotency/key_keeper.h"
#include "metrics/registry.h"
#include "net/blocking_pool.h"
#include "pii/guard.h"
#include "prompts/prompt_store.h"
#include "usage/usage_writer.h"

#include <functional>
#include <memory>

namespace modelgw::chat {

struct ChatDeps {
  const catalog::Catalog& catalog;
  usage::UsageWriter& usage;
  const SecretRedactor& redactor;
  std::size_t max_body_bytes;
  config::RetryConfig retry;
  net::BlockingPool& blocking;
  prompts::PromptStore* prompts = nullptr;  // named prompts; nullptr: requests naming one are refused
  const pii::Guard* pii = nullptr;          // the PII step; nullptr: no scanning
  // The tenant's PII policy without blocking (nullptr when not cached), and
  // the lookup that may block; both required with `pii`.
  std::function<std::shared_ptr<const pii::Policy>(const auth::Principal&)> pii_policy_cached;
  std::function<std::shared_ptr<const pii::Policy>(const auth::Principal&)> pii_policy;
  // The spend step; nullptr: nothing is metered (no budgets, no rate limits).
  budget::SpendControl* spend = nullptr;
  // The tenant's budgets and rate limits without blocking (nullptr when not
  // cached), and the lookup that may block; both required with `spend`.
  std::function<std::shared_ptr<const budget::TenantSpend>(const auth::Principal&)> spend_of_cached;
  std::function<std::shared_ptr<const budget::TenantSpend>(const auth::Principal&)> spend_of;
  // The idempotency step; nullptr: the store keeps no keys, and requests
  // that send one are refused.
  idempotency::KeyKeeper* idempotency = nullptr;
  // The audit log (PII blocks and flags, budget exhaustion); nullptr: none.
  audit::AuditLog* audit = nullptr;
  // Where calls are counted (metrics/registry.h); nullptr: metrics are off.
  modelgw::metrics::Registry* metrics = nullptr;
  std::int64_t max_choices = 8;               // budget.max_choices: the largest n served
  std::int64_t default_output_tokens = 4096;  // budget.default_output_tokens: a hold without max_tokens
};

// Whether the answer sent is kept with its Idempotency-Key: a complete 200.
bool keeps_answer(const http::ServerCall& call, const Outcome& outcome);

class ChatEndpoint {
 public:
  explicit ChatEndpoint(ChatDeps deps) : deps_(std::move(deps)), policy_(deps_.retry) {}

  // `door`: the API the call came through (front_door.h); nullptr for
  // POST /v1/chat/completions itself.
  net::Task<void> handle(http::ServerCall& call, const auth::Principal& principal,
                         const FrontDoor* door = nullptr);

 private:
  // What one stage hands the next.
  struct Flow {
    std::optional<std::string> idempotency_key;  // the header's value, checked
    std::string_view text;                       // the body as the upstream will see it: as sent, or `edited`
    std::string edited;  // the body after a door's translation, a prompt's expansion or a mask
    nlohmann::json doc;  // the parsed body, until the chat request takes it
    std::optional<ChatRequest> request;
    const std::vector<const catalog::ModelRoute*>* candidates = nullptr;  // the alias's models
    Routing routing;
    // The door's own request for a provider that serves its API natively
    // (DoorRequest::native), parsed until the PII stage, then as sent: the
    // door's text of it (DoorRequest::native_text) unless the stage masked
    // it, else its serialisation.
    std::string_view native_operation;
    nlohmann::json native_doc;
    std::string native_text;
  };

  net::Task<void> serve(http::ServerCall& call, Outcome& outcome);
  // The other chains (FrontDoor::Chain), each in its door's folder.
  net::Task<void> serve_embeddings(http::ServerCall& call, Outcome& outcome);
  net::Task<void> serve_count_tokens(http::ServerCall& call, Outcome& outcome);
  // The PII stage on a document of the door's own (every string in it),
  // masked in place; false when the request was answered (blocked, failed).
  // With `clean`, the texts an earlier document of the same request was
  // found clean in are not scanned again, and this one's are added.
  net::Task<bool> apply_pii_to_document(http::ServerCall& call, nlohmann::json& doc, Outcome& outcome,
                                        pii::CleanTexts* clean = nullptr);
  // The spend stage for a request with no output (embeddings): the prompt's
  // tokens at the dearest input price of `routes`; false when answered.
  net::Task<bool> hold_input(http::ServerCall& call, const std::vector<const catalog::ModelRoute*>& routes,
                             std::int64_t prompt_tokens, Outcome& outcome);
  // The read stage (read_stage.cpp): each false when the request was answered.
  bool admit(http::ServerCall& call, Outcome& outcome) const;
  bool read_headers(http::ServerCall& call, Flow& flow, Outcome& outcome) const;
  bool read_body(http::ServerCall& call, Flow& flow, Outcome& outcome) const;
  net::Task<bool> open_door(http::ServerCall& call, Flow& flow, Outcome& outcome);
  bool validate(http::ServerCall& call, Flow& flow, Outcome& outcome) const;
  // Routing and the upstream exchange, with each model of the route in turn.
  bool route(http::ServerCall& call, Flow& flow, Outcome& outcome) const;
  net::Task<void> exchange(http::ServerCall& call, Flow& flow, Outcome& outcome);
  // The PII stage (pii_stage.cpp): false when the request was answered (blocked, or the mode
  // failed). Masked text is written into flow.text (through flow.edited) and
  // into flow.native_doc.
  net::Task<bool> apply_pii_policy(http::ServerCall& call, Flow& flow, Outcome& outcome);
  // The same policy on the door's native request (Flow::native_doc), masked in
  // place; false when it blocks. `clean` holds the chat request's texts found
  // clean, which are not scanned again.
  bool apply_pii_to_native(http::ServerCall& call, Flow& flow, const pii::Policy& policy,
                           pii::CleanTexts& clean, Outcome& outcome) const;
  // The idempotency stage (idempotency_stage.cpp): false when the request was
  // answered (replayed, followed, refused). `body` is the request as sent
  // (for its digest). Its end keeps the answer with the key when `keep`
  // (keeps_answer), else frees the key.
  net::Task<bool> take_idempotency_key(http::ServerCall& call, std::string key, const nlohmann::json& body,
                                       Outcome& outcome);
  net::Task<void> finish_idempotency_key(http::ServerCall& call, Outcome& outcome, bool keep);
  // The spend stage (spend_stage.cpp). The request rate, held before the PII scan: false when the request was
  // answered (429, 503).
  net::Task<bool> hold_requests(http::ServerCall& call, Outcome& outcome);
  // Answers a refused admission (its headers, reason, audit event); false.
  bool refuse_spend(http::ServerCall& call, budget::Admission& admission, Outcome& outcome) const;
  // The spend stage (money, tokens): false when the request was answered (402, 429, 503).
  net::Task<bool> hold_spend(http::ServerCall& call, const ChatRequest& request, Routing& routing,
                             std::string_view body, Outcome& outcome);
  void answer_error(http::ServerCall& call, errors::ApiError error, Outcome& outcome) const;

  ChatDeps deps_;
  RetryPolicy policy_;
};

}  // namespace modelgw::chat
