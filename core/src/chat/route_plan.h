// Before any upstream call: which concrete models of the requested alias can
// take this request (parameter support, context window), and what each is
// sent. A tier skips the models that cannot; a concrete alias refuses.
#pragma once

#include "catalog/catalog.h"
#include "chat/chat_request.h"
#include "errors/api_error.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace modelgw::chat {

struct RoutePlan {
  const catalog::ModelRoute* route = nullptr;
  std::vector<std::string> dropped;     // parameters removed (drop_unsupported_params)
  std::string body;                     // the body without them; empty when nothing was dropped
  std::int64_t prompt_tokens = 0;       // counted for the model's tokenizer; 0 when not counted
  std::int64_t default_max_tokens = 0;  // the catalog's output size for a client that set none
  std::int64_t output_limit = 0;        // the spend hold's output size, told to the vendor; 0: none
};

struct Routing {
  std::vector<RoutePlan> plans;             // in the order to try them
  std::optional<errors::ApiError> refusal;  // set when no plan is left: the first model's reason
};

// `body` is the request's text, when the caller has it: dropped parameters
// are then spliced out of it, and the exact (BPE) prompt count runs only when
// a cheap upper bound (a token covers at least one byte) comes within the
// model's context window; otherwise the plan's prompt_tokens stays 0.
// `native_operation`: the door's API, for the models whose provider serves it
// natively (their parameter tables do not apply: they get that API itself).
Routing plan_routes(const std::vector<const catalog::ModelRoute*>& candidates, const ChatRequest& request,
                    std::string_view body = {}, std::string_view native_operation = {});

// The exact prompt count of `body` for the route's tokenizer (parses it; for
// the rare record that needs it). 0 when the body is not JSON.
std::int64_t count_prompt_tokens(const catalog::ModelRoute& route, std::string_view body);

// "temperature, top_p": the value of the X-Dropped-Params header.
std::string join_names(const std::vector<std::string>& names);

}  // namespace modelgw::chat
