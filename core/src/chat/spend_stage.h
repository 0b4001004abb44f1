// The chat path's spend step (budget/admission does the holding): what the
// request may cost on its route, held before the upstream call and the
// output limit the hold covers written into what each model is sent; after
// the response, the real cost priced and settled onto the usage record.
#pragma once

#include "budget/admission.h"
#include "catalog/catalog.h"
#include "chat/chat_request.h"
#include "chat/outcome.h"
#include "chat/route_plan.h"
#include "http/server_call.h"

#include <string_view>

namespace modelgw::chat {

// How the hold counts the prompt: the exact BPE count for each model's
// tokenizer, or tokenizer::bound_chat_prompt for all of them (no tokenizer
// counts past it; a walk over the messages instead of a pass over bytes).
enum class PromptCount { exact, bound };

// The hold's inputs for this route: the most prompt tokens any of its models
// may count (a model without a public tokenizer: tokenizer::bound_chat_prompt,
// an upper bound, never the low estimate the context check uses), the
// dearest prices it may reach, the largest default output (at most
// `default_output_cap`), and n. With PromptCount::bound the result says
// prompt_bounded, unless the bound would lower a default output limit the
// window sets (that request is counted exactly).
budget::SpendRequest spend_request(const Routing& routing, const ChatRequest& request,
                                   std::int64_t default_output_cap, PromptCount how = PromptCount::exact);

// Writes the output limit into every plan's body (for a client that set
// none): the vendor is told what the hold covers. `doc`, the parsed body
// when the caller has it, spares locating a member it does not hold.
void limit_output(Routing& routing, std::string_view body, std::int64_t output_tokens,
                  const nlohmann::json* doc = nullptr);

// Prices the record from the model that served it (the catalog's prices for
// its alias) and settles the hold onto the record's charges.
void settle_spend(Outcome& outcome, const catalog::Catalog& catalog, budget::SpendControl* spend);

}  // namespace modelgw::chat
