// A front door: one public API served by the chat chain. The chain
// (chat_endpoint.cpp) authenticates, claims the idempotency key, scans for
// PII, routes, holds spend, calls the provider, settles and records the same
// way for every door; a door only says how its request becomes a chat
// completions request and how the chain's answer (a chat completion, whole or
// as chunks) goes back in its own form. POST /v1/chat/completions is the door
// with no translation at all (a null door: nothing on its path changes).
#pragma once

#include "errors/api_error.h"
#include "net/asio.h"

#include <modelgw/plugin.h>

#include <nlohmann/json.hpp>

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

namespace modelgw::chat {

// How one call's answer is written in the door's form. Made per call (it may
// keep the state of a stream); used on the call's event loop only.
class AnswerShaper {
 public:
  virtual ~AnswerShaper() = default;
  // The whole answer: the provider's chat completion body -> the door's body
  // (a JSON object holding the top-level request_id). nullopt when the body
  // is not a chat completion the door can read.
  virtual std::optional<std::string> whole(std::string_view chat_completion, std::string_view request_id) = 0;
  // A streamed answer. Each appends complete SSE events to `out`:
  //   chunk: one chat.completion.chunk object (false: not one the door reads);
  //   finish: after the provider's last chunk, with the usage it reported;
  //   fail: the stream ends with `error` after it began.
  virtual bool chunk(std::string_view chunk_json, std::string_view request_id, std::string& out) = 0;
  virtual void finish(const std::optional<mgw_usage>& usage, std::string_view request_id,
                      std::string& out) = 0;
  virtual void fail(const errors::ApiError& error, std::string_view request_id, std::string& out) = 0;

  // The attempt about to run goes to a provider that serves the door's API
  // natively (`on`; plugin.h, "Native operations"): whole() and chunk() then
  // get the door's own answer (a whole response object, one event's data
  // object) instead of a chat completion. Called before every attempt: a
  // fallback may go to a provider that does not.
  virtual void use_native(bool /*on*/) {}

  // The chat request as it goes upstream, after the PII stage. `pii_flagged`:
  // it holds values the tenant's policy lets through but records, which a
  // door that keeps requests must not keep.
  virtual void sent(std::string_view /*chat_body*/, bool /*pii_flagged*/) {}
  // The answer is complete: its whole body, or its stream's last events, are
  // about to be sent. A door that keeps answers keeps it now, so a client
  // that reads the end can use what was kept at once. `usage`: what a stream
  // reported. On the call's loop; may offload.
  virtual net::Task<void> complete(std::optional<mgw_usage> /*usage*/) { co_return; }
};

// The door's request: the chat completions document the chain serves, and
// the shaper of its answer.
struct DoorRequest {
  nlohmann::json chat;
  std::unique_ptr<AnswerShaper> shaper;
  // Response headers the door adds (what it left out of the request).
  std::vector<std::pair<std::string, std::string>> headers;
  // The door's own request as a provider that serves its API natively takes
  // it (plugin.h, "Native operations"): the whole conversation, nothing the
  // gateway keeps for itself. Only when open() was asked for it. The PII
  // stage scans and masks it as it does `chat`.
  std::optional<nlohmann::json> native;
  // `native` as text, when the door could write it without serialising the
  // document (the client's body as sent, or with one member set): sent
  // unless the PII stage edits `native`. Empty: `native` is serialised.
  std::string native_text;
};

class FrontDoor {
 public:
  virtual ~FrontDoor() = default;
  // The ordered stages a call through the door passes (chat_endpoint.h).
  // `chat`: the chat chain, with the door's translation; `embeddings`: no
  // output, never streamed, split into the model's batches
  // (embeddings/embeddings_chain.cpp); `count_tokens`: never billed, nothing
  // generated (messages/count_tokens_chain.cpp).
  enum class Chain { chat, embeddings, count_tokens };
  virtual Chain chain() const { return Chain::chat; }
  // What usage records and metrics call this API ("responses").
  virtual std::string_view operation() const = 0;
  // What its body holds, for the message to a client that sent none
  // ("model and input").
  virtual std::string_view body_members() const = 0;
  // The body as sent (parsed, not yet checked; `text` is what it was parsed
  // from) -> the chat request, or the error that names the door's own
  // parameter. `native`: a provider of the
  // requested model serves operation() natively, so the door also writes
  // DoorRequest::native. On the call's loop; what it reads from storage (a
  // conversation continued) it reads off the loop.
  virtual net::Task<std::variant<DoorRequest, errors::ApiError>> open(nlohmann::json body,
                                                                      std::string_view text,
                                                                      std::int64_t tenant_id,
                                                                      std::string_view request_id,
                                                                      bool native) const = 0;
  // A later stage's error names a chat parameter (max_tokens, messages[2]...):
  // the door's name for it.
  virtual std::string param_name(std::string_view chat_param) const = 0;
  // The member of DoorRequest::native that caps the answer's size
  // ("max_output_tokens", "max_tokens"): the chain writes the spend hold's
  // output limit there when it is lower than what the client asked.
  virtual std::string_view output_limit_member() const = 0;
  // Headers of the client's request passed on to a provider that serves the
  // door's API natively (mgw_call_context.client_headers), lower case.
  virtual std::span<const std::string_view> forwarded_headers() const { return {}; }
};

}  // namespace modelgw::chat
