#include "chat/route_plan.h"

#include "catalog/parameters.h"
#include "chat/body_members.h"
#include "util/json_write.h"

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

// "0.5" rather than "0.500000" in a message.
std::string number_text(double v) {
  std::string s = nlohmann::json(v).dump();
  if (s.size() > 2 && s.ends_with(".0")) s.resize(s.size() - 2);
  return s;
}

// The members `route` does not admit: those its plugin drops (ABI 1.4
// parameter rows) and, when the entry says so, every other one go to
// `dropped`; the rest to `refused`. An admitted number outside the plugin's
// range is refused with `out_of_range`.
struct Unadmitted {
  std::vector<std::string> refused;
  std::vector<std::string> dropped;
  std::optional<errors::ApiError> out_of_range;
};

Unadmitted unadmitted_members(const nlohmann::json& doc, const catalog::ModelRoute& route) {
  Unadmitted out;
  for (const auto& [key, value] : doc.items()) {
    if (value.is_null() || catalog::is_core_member(key)) continue;
    if (route.supports_parameter(key)) {
      auto range = route.ranges.find(key);
      if (range != route.ranges.end() && value.is_number() && !out.out_of_range) {
        const double v = value.get<double>();
        const auto [lo, hi] = range->second;
        if (v < lo || v > hi) {
          out.out_of_range = errors::ApiError{400, "invalid_parameter",
                                              "model '" + route.entry.alias + "' takes '" + key + "' from " +
                                                  number_text(lo) + " to " + number_text(hi) +
                                                  "; send a value in that range",
                                              key};
        }
      }
      continue;
    }
    if (route.plugin_drops.contains(key) || route.entry.drop_unsupported_params) {
      out.dropped.push_back(key);
    } else {
      out.refused.push_back(key);
    }
  }
  return out;
}

// The name comes from the client: quoted as a bounded excerpt, in the message
// and in `param` alike, so a 4 MB member name does not make a 4 MB answer.
errors::ApiError unsupported_error(const std::string& name, const catalog::ModelRoute& route) {
  const bool known = catalog::is_known_parameter(name);
  std::string param = errors::input_excerpt(name, 128);
  return errors::ApiError{
      422, "unsupported_parameter",
      (known ? "model '" + route.entry.alias + "' does not support the parameter '" + param + "'"
             : "'" + param + "' is not a chat completion parameter the gateway knows") +
          "; remove it from the request",
      std::move(param)};
}

// At least the prompt tokens count_chat_prompt finds in `body`, for no more
// than a walk over the messages: every BPE token covers at least one byte of
// text, the text is no longer than the JSON it is written in, and the JSON's
// punctuation pays for the per-message overhead. Only image parts are priced
// above their bytes (a fixed 85 tokens), so they are added apart.
std::int64_t prompt_tokens_bound(const nlohmann::json& doc, std::string_view body) {
  std::int64_t bound = static_cast<std::int64_t>(body.size()) + 8;
  auto messages = doc.find("messages");
  if (messages == doc.end() || !messages->is_array()) return bound;
  for (const auto& m : *messages) {
    if (!m.is_object()) continue;
    auto content = m.find("content");
    if (content == m.end() || !content->is_array()) continue;
    for (const auto& part : *content) {
      if (part.is_object() && part.value("type", "") != "text") bound += 85;
    }
  }
  return bound;
}

}  // namespace

std::int64_t count_prompt_tokens(const catalog::ModelRoute& route, std::string_view body) {
  auto doc = nlohmann::json::parse(body, nullptr, false);
  if (doc.is_discarded()) return 0;
  return static_cast<std::int64_t>(tokenizer::count_chat_prompt(route.encoding, doc));
}

std::string join_names(const std::vector<std::string>& names) {
  std::string out;
  for (const auto& n : names) out.append(out.empty() ? "" : ", ").append(n);
  return out;
}

Routing plan_routes(const std::vector<const catalog::ModelRoute*>& candidates, const ChatRequest& request,
                    std::string_view body, std::string_view native_operation) {
  Routing routing;
  const std::int64_t bound = body.empty() ? 0 : prompt_tokens_bound(request.doc, body);
  std::optional<std::optional<std::vector<mgw_json_member>>>
      members;  // indexed once, when a member is dropped
  // A tier may hold several models on one tokenizer: count once per tokenizer.
  std::map<const tokenizer::Encoding*, std::int64_t> counted;
  for (const catalog::ModelRoute* route : candidates) {
    const auto& entry = route->entry;
    RoutePlan plan;
    plan.route = route;
    plan.default_max_tokens = entry.max_output_tokens;

    // A provider that serves the door's API natively is sent that API, not
    // the chat form: the parameter table does not apply (plugin.h).
    const bool native = !native_operation.empty() && route->provider != nullptr &&
                        route->provider->serves_natively(native_operation);
    auto unadmitted = native ? Unadmitted{} : unadmitted_members(request.doc, *route);
    if (!unadmitted.refused.empty() || unadmitted.out_of_range) {
      if (!routing.refusal) {
        routing.refusal = unadmitted.refused.empty() ? std::move(*unadmitted.out_of_range)
                                                     : unsupported_error(unadmitted.refused.front(), *route);
      }
      continue;
    }
    auto& unsupported = unadmitted.dropped;
    if (!unsupported.empty()) {
      // Spliced out of the text as sent; re-serialised only when the text
      // cannot be indexed (escaped or repeated keys) or was not given.
      if (!members && !body.empty()) members = index_members(body);
      if (members && *members) {
        plan.body = without_members(**members, unsupported);
      } else {
        nlohmann::json copy = request.doc;
        for (const auto& name : unsupported) copy.erase(name);
        plan.body = util::json_text(copy);
      }
      plan.dropped = std::move(unsupported);
    }

    if (entry.context_window > 0) {
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
      // Far from the window, the cheap bound settles it and the exact count
      // is left for when it is needed (a usage record the vendor gave no
      // count for): prompt_tokens stays 0, "not counted".
      if (bound > 0 && output <= entry.context_window - bound) {
        routing.plans.push_back(std::move(plan));
        continue;
      }
      auto [it, fresh] = counted.try_emplace(route->encoding, 0);
      if (fresh) {
        it->second = static_cast<std::int64_t>(tokenizer::count_chat_prompt(route->encoding, request.doc));
      }
      plan.prompt_tokens = it->second;
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
          routing.refusal = errors::ApiError{
              422, "context_length_exceeded",
              "this request needs " + grouped(needed) + " tokens (" + how + ") but model '" + entry.alias +
                  "' has a context window of " + grouped(entry.context_window) +
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
