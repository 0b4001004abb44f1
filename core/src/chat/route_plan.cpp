#include "chat/route_plan.h"

#include "catalog/parameters.h"

#include <algorithm>
#include <limits>
#include <map>

namespace modelgw::chat {
namespace {

// "128,000" reads better in an error message than "128000".
std::string grouped(std::int64_t n) {
  std::string digits = std::to_string(n);
  std::string out;
  const std::size_t first = digits.size() % 3 == 0 ? 3 : digits.size() % 3;
  out.append(digits, 0, first);
  for (std::size_t i = first; i < digits.size(); i += 3) out.append(",").append(digits, i, 3);
  return out;
}

std::vector<std::string> unsupported_members(const nlohmann::json& doc, const catalog::ModelRoute& route) {
  std::vector<std::string> out;
  for (const auto& [key, value] : doc.items()) {
    if (value.is_null() || catalog::is_core_member(key) || route.supports_parameter(key)) continue;
    out.push_back(key);
  }
  return out;
}

http::ApiError unsupported_error(const std::string& param, const catalog::ModelRoute& route) {
  const bool known = catalog::is_known_parameter(param);
  return http::ApiError{
      422, "unsupported_parameter",
      (known ? "model '" + route.entry.alias + "' does not support the parameter '" + param + "'"
             : "'" + param + "' is not a chat completion parameter the gateway knows") +
          "; remove it from the request",
      param};
}

}  // namespace

std::string join_names(const std::vector<std::string>& names) {
  std::string out;
  for (const auto& n : names) out.append(out.empty() ? "" : ", ").append(n);
  return out;
}

Routing plan_routes(const std::vector<const catalog::ModelRoute*>& candidates, const ChatRequest& request) {
  Routing routing;
  // A tier may hold several models on one tokenizer: count once per tokenizer.
  std::map<const tokenizer::Encoding*, std::int64_t> counted;
  for (const catalog::ModelRoute* route : candidates) {
    const auto& entry = route->entry;
    RoutePlan plan;
    plan.route = route;
    plan.default_max_tokens = entry.max_output_tokens;

    auto unsupported = unsupported_members(request.doc, *route);
    if (!unsupported.empty() && !entry.drop_unsupported_params) {
      if (!routing.refusal) routing.refusal = unsupported_error(unsupported.front(), *route);
      continue;
    }
    if (!unsupported.empty()) {
      nlohmann::json copy = request.doc;
      for (const auto& name : unsupported) copy.erase(name);
      plan.body = copy.dump();
      plan.dropped = std::move(unsupported);
    }

    if (entry.context_window > 0) {
      auto [it, fresh] = counted.try_emplace(route->encoding, 0);
      if (fresh) {
        it->second = static_cast<std::int64_t>(tokenizer::count_chat_prompt(route->encoding, request.doc));
      }
      plan.prompt_tokens = it->second;
      // The client's limit counts unless it was one of the dropped parameters;
      // of the two names, the one the upstream is sent (max_completion_tokens
      // when both are kept, as in parse_chat_request).
      bool client_set = false;
      std::int64_t client_limit = 0;
      for (const char* name : {"max_tokens", "max_completion_tokens"}) {
        auto v = request.doc.find(name);
        const bool dropped = std::find(plan.dropped.begin(), plan.dropped.end(), name) != plan.dropped.end();
        if (v == request.doc.end() || v->is_null() || dropped) continue;
        client_set = true;
        client_limit = v->get<std::int64_t>();  // parse_chat_request checked it is a positive integer
      }
      const std::int64_t output = client_set ? client_limit : entry.max_output_tokens;
      // Saturated: a client may send any max_tokens up to 2^63-1.
      const std::int64_t needed = output > std::numeric_limits<std::int64_t>::max() - plan.prompt_tokens
                                      ? std::numeric_limits<std::int64_t>::max()
                                      : plan.prompt_tokens + output;
      if (needed > entry.context_window) {
        if (!routing.refusal) {
          std::string how = grouped(plan.prompt_tokens) + " prompt tokens";
          if (output > 0) {
            how += " + " + grouped(output) +
                   (client_set ? " max_tokens" : " output tokens (the model's default)");
          }
          routing.refusal =
              http::ApiError{422, "context_length_exceeded",
                             "this request needs " + grouped(needed) + " tokens (" + how + ") but model '" +
                                 entry.alias + "' has a context window of " + grouped(entry.context_window) +
                                 " tokens; shorten the messages" + (client_set ? " or lower max_tokens" : ""),
                             "messages"};
        }
        continue;
      }
    }
    routing.plans.push_back(std::move(plan));
  }
  if (!routing.plans.empty()) routing.refusal.reset();
  return routing;
}

}  // namespace modelgw::chat
