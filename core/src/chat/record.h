// The record stage: every authenticated chat call leaves exactly one usage
// record (however many attempts it took, answered or not) and one log line.
#pragma once

#include "chat/outcome.h"
#include "chat/secret_redactor.h"
#include "http/server_call.h"
#include "usage/usage_writer.h"

namespace modelgw::chat {

// Starts the outcome of a call: who, when, which request.
void open_outcome(Outcome& outcome, const http::ServerCall& call, const auth::Principal& principal);
// Answers `error` (its message cleared of secrets) and notes its code.
void answer_error(http::ServerCall& call, errors::ApiError error, Outcome& outcome,
                  const SecretRedactor& redactor);
// Completes it from the answer sent and enqueues the record (never blocks);
// notes the model and provider for the call's access-log line.
void record_outcome(Outcome& outcome, http::ServerCall& call, usage::UsageWriter& usage);

}  // namespace modelgw::chat
