// POST /v1/chat/completions: validate, resolve the alias, let the provider
// plugin build the upstream request, send it, and relay the answer, plain or
// streamed. Every authenticated call leaves exactly one usage record.
#pragma once

#include "auth/principal.h"
#include "catalog/catalog.h"
#include "chat/secret_redactor.h"
#include "http/call.h"
#include "upstream/exchange.h"
#include "usage/usage_writer.h"

namespace modelgw::chat {

struct ChatDeps {
  const catalog::Catalog& catalog;
  usage::UsageWriter& usage;
  const SecretRedactor& redactor;
  std::size_t max_body_bytes;
};

class ChatService {
 public:
  explicit ChatService(ChatDeps deps) : deps_(deps) {}

  void handle(http::Call& call, const auth::Principal& principal);

 private:
  struct Outcome;

  void serve(http::Call& call, Outcome& outcome);
  void relay_whole(http::Call& call, const catalog::ModelRoute& route, const mgw_call_context& ctx,
                   upstream::Exchange& exchange, Outcome& outcome);
  void relay_stream(http::Call& call, const catalog::ModelRoute& route, const mgw_call_context& ctx,
                    upstream::Exchange& exchange, Outcome& outcome);
  void answer_error(http::Call& call, http::ApiError error, Outcome& outcome) const;

  ChatDeps deps_;
};

}  // namespace modelgw::chat
