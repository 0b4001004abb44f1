#include "importer/litellm_settings.h"

#include "importer/modelgw_yaml.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <functional>
#include <map>

namespace modelgw::importer {
namespace {

std::string lower_text(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
  return s;
}

bool plain_value(const std::string& v) {
  if (v.rfind("os.environ/", 0) == 0) return true;
  const std::string l = lower_text(v);
  if (l == "true" || l == "false" || l == "yes" || l == "no" || l == "null" || l == "none") return true;
  return number_value(YAML::Node(v)).has_value();
}

void add_all_scalars(const YAML::Node& node, SecretBook& secrets) {
  if (!node) return;
  if (auto env = env_reference(node)) {
    secrets.reserve(*env);
  } else if (node.IsScalar()) {
    if (!plain_value(node.Scalar())) secrets.add(node.Scalar());
  } else if (node.IsSequence()) {
    for (const auto& item : node) add_all_scalars(item, secrets);
  } else if (node.IsMap()) {
    for (const auto& kv : node) add_all_scalars(kv.second, secrets);
  }
}

void walk_secrets(const YAML::Node& node, SecretBook& secrets) {
  if (!node) return;
  if (auto env = env_reference(node)) {
    secrets.reserve(*env);
  } else if (node.IsSequence()) {
    for (const auto& item : node) walk_secrets(item, secrets);
  } else if (node.IsMap()) {
    for (const auto& kv : node) {
      const std::string key = kv.first.IsScalar() ? kv.first.Scalar() : "";
      if (is_credential_key(key) || key == "environment_variables") {
        add_all_scalars(kv.second, secrets);
      } else {
        walk_secrets(kv.second, secrets);
      }
    }
  }
}

std::string setting_number_text(double v) {
  if (v == std::floor(v) && std::fabs(v) < 1e15) return std::to_string(static_cast<long long>(v));
  std::string s = std::to_string(v);
  while (!s.empty() && s.back() == '0') s.pop_back();
  return s;
}

std::int64_t usd_micros(double usd) {
  return std::clamp<std::int64_t>(std::llround(usd * 1e6), 0, 1'000'000'000'000'000);
}

// A modelgw budget for a LiteLLM max_budget over budget_duration: the
// command, and whether it only approximates the duration.
struct BudgetLine {
  std::string command;
  std::string note;
  bool exact = true;
};

BudgetLine budget_line(const std::string& scope_options, double limit,
                       const std::optional<std::string>& duration) {
  BudgetLine b;
  const std::int64_t limit_micros = usd_micros(limit);
  if (!duration) {
    b.command =
        "modelgw budgets create " + scope_options + " --window month --limit " + usd_text(limit_micros);
    b.note = "no budget_duration (LiteLLM: never resets): a monthly window is the nearest";
    b.exact = false;
    return b;
  }
  const auto seconds = duration_seconds(*duration);
  if (!seconds) {
    b.command =
        "modelgw budgets create " + scope_options + " --window month --limit " + usd_text(limit_micros);
    b.note = "budget_duration '" + *duration + "' not understood: a monthly window assumed";
    b.exact = false;
    return b;
  }
  std::string window = "month";
  std::int64_t window_seconds = 30 * 86400;
  if (*seconds < 86400) {
    window = "hour";
    window_seconds = 3600;
  } else if (*seconds < 28 * 86400) {
    window = "day";
    window_seconds = 86400;
  }
  std::int64_t scaled = limit_micros;
  const bool same =
      *seconds == window_seconds || (window == "month" && *seconds >= 28 * 86400 && *seconds <= 31 * 86400);
  if (!same) {
    scaled = static_cast<std::int64_t>(
        std::floor(static_cast<double>(limit_micros) * static_cast<double>(window_seconds) /
                   static_cast<double>(*seconds)));
    b.exact = false;
    b.note = "budget_duration " + *duration + " has no modelgw window: " + usd_text(limit_micros) + " per " +
             *duration + " is " + usd_text(scaled) + " per " + window;
  } else {
    b.note = "resets at each UTC " + window + " boundary (LiteLLM: " + *duration + " after the budget began)";
  }
  b.command =
      "modelgw budgets create " + scope_options + " --window " + window + " --limit " + usd_text(scaled);
  return b;
}

// A list of `{group: [targets]}` maps (LiteLLM's fallbacks shape).
void read_chains(const YAML::Node& list, const std::string& setting, bool context_window,
                 RoutingSettings& out, std::vector<ReportRow>& rows) {
  if (!list.IsSequence()) {
    rows.push_back({setting, RowStatus::unsupported, "not a list of {model_name: [fallbacks]}; ignored"});
    return;
  }
  for (std::size_t i = 0; i < list.size(); ++i) {
    const std::string at = setting + "[" + std::to_string(i) + "]";
    if (!list[i].IsMap()) {
      rows.push_back({at, RowStatus::unsupported, "not a {model_name: [fallbacks]} mapping; ignored"});
      continue;
    }
    for (const auto& kv : list[i]) {
      FallbackChain c;
      c.setting = at;
      c.group = kv.first.Scalar();
      c.context_window = context_window;
      if (kv.second.IsSequence()) {
        for (const auto& t : kv.second) {
          if (auto s = scalar_text(t)) c.targets.push_back(*s);
        }
      } else if (auto s = scalar_text(kv.second)) {
        c.targets.push_back(*s);
      }
      out.chains.push_back(std::move(c));
    }
  }
}

using Handler = std::function<void(const std::string& setting, const YAML::Node& value)>;

constexpr const char* kNoCallbacks =
    "modelgw sends nothing to third-party loggers: every request leaves a usage record in its store (GET "
    "/v1/usage), an access-log line, and Prometheus metrics at GET /metrics";
constexpr const char* kNoCache =
    "modelgw caches no answers (an Idempotency-Key replays the first answer of one request, nothing more)";
constexpr const char* kNoRedis =
    "modelgw instances share budgets and rate limits through their store (storage plugin postgres, README "
    "\"Several instances on PostgreSQL\"); no Redis";
constexpr const char* kNoCooldown =
    "modelgw has no cooldown: each request tries the route in order, retrying retryable failures with "
    "backoff "
    "(retry.*)";

}  // namespace

void collect_secrets(const YAML::Node& root, SecretBook& secrets) {
  walk_secrets(root, secrets);
}

RoutingSettings read_settings(const YAML::Node& root, Draft& draft, std::vector<ReportRow>& rows) {
  RoutingSettings out;
  auto row = [&](const std::string& setting, RowStatus status, std::string detail) {
    rows.push_back(ReportRow{setting, status, std::move(detail)});
  };
  const YAML::Node router = child(root, "router_settings");
  const YAML::Node lsettings = child(root, "litellm_settings");
  const YAML::Node general = child(root, "general_settings");

  // Values one section takes from another: the router's first.
  std::optional<double> timeout_s;
  std::string timeout_setting;
  std::optional<std::pair<double, std::string>> retries;
  std::string tenant = "default";

  std::map<std::string, Handler> router_keys{
      {"routing_strategy",
       [&](const std::string& s, const YAML::Node& v) {
         row(s, RowStatus::approximated,
             scalar_text(v).value_or("?") +
                 ": modelgw tries a group's deployments in a fixed order (order, weight, rpm, tpm, then file "
                 "order) and moves to the next when one fails; it does not spread load");
       }},
      {"num_retries",
       [&](const std::string& s, const YAML::Node& v) {
         if (auto n = number_value(v)) retries = std::make_pair(*n, s);
       }},
      {"timeout",
       [&](const std::string& s, const YAML::Node& v) {
         if (auto t = number_value(v)) {
           timeout_s = *t;
           timeout_setting = s;
         }
       }},
      {"stream_timeout",
       [&](const std::string& s, const YAML::Node& v) {
         if (auto t = number_value(v)) {
           out.defaults.first_byte_timeout_ms = seconds_to_ms(*t);
           row(s, RowStatus::approximated,
               "first_byte_timeout_ms " + std::to_string(*out.defaults.first_byte_timeout_ms) +
                   " on every provider: it bounds the wait for the answer's head and each silence within a "
                   "stream, "
                   "for plain calls too");
         }
       }},
      {"retry_after",
       [&](const std::string& s, const YAML::Node& v) {
         if (auto t = number_value(v); t && *t > 0) {
           draft.retry_base_ms = seconds_to_ms(*t);
           row(s, RowStatus::approximated,
               "retry.base_ms " + std::to_string(*draft.retry_base_ms) +
                   ": the first wait before a retry; modelgw doubles it for each next one (up to "
                   "retry.max_wait_ms) "
                   "and honours the vendor's Retry-After");
         } else {
           row(s, RowStatus::imported, "no minimum wait: modelgw's backoff starts at retry.base_ms");
         }
       }},
      {"fallbacks", [&](const std::string& s, const YAML::Node& v) { read_chains(v, s, false, out, rows); }},
      {"context_window_fallbacks",
       [&](const std::string& s, const YAML::Node& v) { read_chains(v, s, true, out, rows); }},
      {"default_fallbacks",
       [&](const std::string& s, const YAML::Node& v) {
         out.default_fallbacks_setting = s;
         if (v.IsSequence()) {
           for (const auto& t : v) {
             if (auto g = scalar_text(t)) out.default_fallbacks.push_back(*g);
           }
         }
       }},
      {"content_policy_fallbacks",
       [&](const std::string& s, const YAML::Node&) {
         row(s, RowStatus::unsupported,
             "a content-policy refusal is the vendor's answer: modelgw returns it and never falls back on "
             "it");
       }},
      {"model_group_alias",
       [&](const std::string& s, const YAML::Node& v) {
         if (!v.IsMap()) {
           row(s, RowStatus::unsupported, "not a mapping of alias: model_name; ignored");
           return;
         }
         for (const auto& kv : v) {
           GroupAlias a;
           a.alias = kv.first.Scalar();
           a.setting = s + "." + a.alias;
           if (kv.second.IsMap()) {
             a.group = scalar_text(child(kv.second, "model")).value_or("");
             a.hidden = bool_value(child(kv.second, "hidden")).value_or(false);
           } else {
             a.group = scalar_text(kv.second).value_or("");
           }
           out.aliases.push_back(std::move(a));
         }
       }},
      {"enable_pre_call_checks",
       [&](const std::string& s, const YAML::Node&) {
         row(s, RowStatus::imported,
             "modelgw checks every request against its model's context_window and parameters before calling; "
             "a "
             "tier skips models that cannot take it");
       }},
      {"disable_cooldowns",
       [&](const std::string& s, const YAML::Node&) {
         row(s, RowStatus::imported, "modelgw has no cooldowns");
       }},
  };
  for (const char* key : {"allowed_fails", "cooldown_time", "allowed_fails_policy", "retry_policy",
                          "model_group_retry_policy", "max_fallbacks"}) {
    router_keys[key] = [&](const std::string& s, const YAML::Node&) {
      row(s, RowStatus::unsupported, kNoCooldown);
    };
  }
  for (const char* key : {"redis_host", "redis_port", "redis_password", "redis_url", "cache_responses",
                          "cache_kwargs", "caching_groups"}) {
    const bool cache = std::string_view(key).find("cach") != std::string_view::npos;
    router_keys[key] = [&, cache](const std::string& s, const YAML::Node&) {
      row(s, RowStatus::unsupported, cache ? kNoCache : kNoRedis);
    };
  }

  std::map<std::string, Handler> litellm_keys{
      {"drop_params",
       [&](const std::string& s, const YAML::Node& v) {
         out.defaults.drop_params = bool_value(v).value_or(false);
         row(s, RowStatus::imported,
             std::string("drop_unsupported_params: ") + (out.defaults.drop_params ? "true" : "false") +
                 " on every model (parameters a model does not take are removed and named in "
                 "X-Dropped-Params)");
       }},
      {"num_retries",
       [&](const std::string& s, const YAML::Node& v) {
         if (auto n = number_value(v); n && !retries)
           retries = std::make_pair(*n, s);
         else if (n)
           row(s, RowStatus::imported, "router_settings.num_retries applies (LiteLLM prefers it too)");
       }},
      {"request_timeout",
       [&](const std::string& s, const YAML::Node& v) {
         if (auto t = number_value(v)) {
           if (!timeout_s) {
             timeout_s = *t;
             timeout_setting = s;
           } else {
             row(s, RowStatus::imported, "router_settings.timeout applies (LiteLLM prefers it too)");
           }
         }
       }},
      {"fallbacks", [&](const std::string& s, const YAML::Node& v) { read_chains(v, s, false, out, rows); }},
      {"context_window_fallbacks",
       [&](const std::string& s, const YAML::Node& v) { read_chains(v, s, true, out, rows); }},
      {"default_fallbacks", router_keys["default_fallbacks"]},
      {"content_policy_fallbacks", router_keys["content_policy_fallbacks"]},
      {"set_verbose",
       [&](const std::string& s, const YAML::Node& v) {
         if (bool_value(v).value_or(false)) {
           draft.logging_level = "debug";
           row(s, RowStatus::approximated, "logging.level: debug (modelgw never logs message contents)");
         } else {
           row(s, RowStatus::imported, "logging.level stays info");
         }
       }},
      {"json_logs",
       [&](const std::string& s, const YAML::Node& v) {
         row(s, RowStatus::imported,
             bool_value(v).value_or(false)
                 ? "modelgw logs JSON lines by default (logging.format: json)"
                 : "logging.format: json is modelgw's default; set text for plain lines");
       }},
      {"turn_off_message_logging",
       [&](const std::string& s, const YAML::Node&) {
         row(s, RowStatus::imported, "modelgw never logs or records message contents");
       }},
      {"redact_user_api_key_info",
       [&](const std::string& s, const YAML::Node&) {
         row(s, RowStatus::imported, "modelgw logs a key's id and prefix only, never the key");
       }},
      {"max_budget",
       [&](const std::string& s, const YAML::Node& v) {
         const auto limit = number_value(v);
         if (!limit) {
           row(s, RowStatus::unsupported, "not a number; ignored");
           return;
         }
         const auto duration = scalar_text(child(lsettings, "budget_duration"));
         if (!duration) {
           row(s, RowStatus::by_hand,
               "a proxy-wide budget that never resets; modelgw's nearest is a tenant's prepaid credit:\n"
               "modelgw credits top-up --tenant " +
                   tenant + " --amount " + usd_text(usd_micros(*limit)) +
                   "\n(per tenant: a total over all "
                   "tenants has no equivalent)");
           return;
         }
         const auto b = budget_line("--tenant " + tenant, *limit, duration);
         row(s, RowStatus::by_hand,
             b.command + "\n" + b.note +
                 "; modelgw budgets are per tenant: run it for each tenant (a total over "
                 "all tenants has no equivalent)");
       }},
      {"budget_duration",
       [&](const std::string& s, const YAML::Node&) {
         row(s, RowStatus::by_hand, "the window of the budget command on litellm_settings.max_budget's row");
       }},
      {"max_end_user_budget",
       [&](const std::string& s, const YAML::Node&) {
         row(s, RowStatus::unsupported,
             "modelgw budgets are per tenant, feature (X-Feature) or key, not per end user");
       }},
      {"default_key_generate_params",
       [&](const std::string& s, const YAML::Node& v) {
         if (!v.IsMap()) return;
         const auto budget = number_value(child(v, "max_budget"));
         const auto duration = scalar_text(child(v, "budget_duration"));
         for (const auto& kv : v) {
           const std::string key = kv.first.Scalar();
           const std::string at = s + "." + key;
           if (key == "max_budget" && budget) {
             const auto b = budget_line("--tenant " + tenant + " --key-id KEY_ID", *budget, duration);
             row(at, RowStatus::by_hand,
                 b.command + "\nfor each key, KEY_ID being the id `modelgw keys create` prints; " + b.note);
           } else if (key == "budget_duration") {
             row(at, RowStatus::by_hand, "the window of the budget command on max_budget's row");
           } else if (key == "rpm_limit" || key == "tpm_limit") {
             const auto n = number_value(kv.second);
             if (!n || *n < 0) continue;
             const bool rpm = key == "rpm_limit";
             (rpm ? draft.key_requests_per_minute : draft.key_tokens_per_minute) =
                 static_cast<std::int64_t>(*n);
             const std::string limit = rpm ? "key_requests_per_minute" : "key_tokens_per_minute";
             row(at, RowStatus::approximated,
                 "rate_limits." + limit + ": " + setting_number_text(*n) +
                     " for every key (LiteLLM: a default for new keys); one tenant's own:\nmodelgw tenants "
                     "settings "
                     "TENANT --set '{\"rate_limits\": {\"" +
                     limit + "\": " + setting_number_text(*n) + "}}'");
           } else if (key == "models") {
             row(at, RowStatus::unsupported,
                 "a modelgw key reaches every catalog alias; scopes limit endpoints");
           } else if (key == "duration") {
             row(at, RowStatus::unsupported,
                 "modelgw keys do not expire: rotate them (modelgw keys rotate ID)");
           } else {
             row(at, RowStatus::unsupported, "no per-key setting of that kind in modelgw");
           }
         }
       }},
      {"upperbound_key_generate_params",
       [&](const std::string& s, const YAML::Node&) {
         row(s, RowStatus::unsupported,
             "modelgw keys are minted by the operator (modelgw keys create), with budgets and rate limits "
             "set "
             "beside them: there is no self-service key request to bound");
       }},
      {"default_team_settings",
       [&](const std::string& s, const YAML::Node& v) {
         if (!v.IsSequence()) return;
         for (std::size_t i = 0; i < v.size(); ++i) {
           const auto team = scalar_text(child(v[i], "team_id"));
           if (!team) continue;
           row(s + "[" + std::to_string(i) + "]", RowStatus::by_hand,
               "a LiteLLM team is a modelgw tenant:\nmodelgw tenants create " + *team +
                   "\nmodelgw keys create --tenant " + *team +
                   " --scopes chat\n(its callbacks have no equivalent: " + kNoCallbacks + ")");
         }
       }},
  };
  for (const char* key : {"success_callback", "failure_callback", "callbacks", "service_callback",
                          "service_callbacks", "langfuse_default_tags", "callback_settings"}) {
    litellm_keys[key] = [&](const std::string& s, const YAML::Node&) {
      row(s, RowStatus::unsupported, kNoCallbacks);
    };
  }
  for (const char* key : {"cache", "cache_params"}) {
    litellm_keys[key] = [&](const std::string& s, const YAML::Node&) {
      row(s, RowStatus::unsupported, kNoCache);
    };
  }
  for (const char* key : {"allowed_fails", "cooldown_time"}) litellm_keys[key] = router_keys[key];

  std::map<std::string, Handler> general_keys{
      {"master_key",
       [&](const std::string& s, const YAML::Node&) {
         row(s, RowStatus::by_hand,
             "not copied; mint the operator's admin key (stored hashed, printed once):\nmodelgw tenants "
             "create "
             "operator\nmodelgw keys create --tenant operator --scopes admin");
       }},
      {"database_url",
       [&](const std::string& s, const YAML::Node&) {
         row(s, RowStatus::unsupported,
             "not copied: modelgw keeps keys, usage and budgets in its own store (storage: sqlite here; "
             "storage.plugin postgres with options.dsn for several instances) and reads none of LiteLLM's "
             "tables; "
             "recreate keys and budgets with the \"by hand\" lines");
       }},
      {"store_model_in_db",
       [&](const std::string& s, const YAML::Node&) {
         row(s, RowStatus::unsupported,
             "models kept in LiteLLM's database are not imported, only model_list");
       }},
      {"disable_spend_logs",
       [&](const std::string& s, const YAML::Node&) {
         row(s, RowStatus::unsupported,
             "modelgw always keeps a usage record per request (its budgets need them)");
       }},
      {"enable_jwt_auth",
       [&](const std::string& s, const YAML::Node&) {
         row(s, RowStatus::by_hand,
             "set auth.jwks_url, auth.issuer, auth.audience and auth.tenant_claim in the written file "
             "(README "
             "\"JWT\"); LiteLLM's litellm_jwtauth mapping is not translated");
       }},
      {"litellm_jwtauth",
       [&](const std::string& s, const YAML::Node&) {
         row(s, RowStatus::unsupported, "see enable_jwt_auth: set modelgw's auth.* keys by hand");
       }},
      {"max_parallel_requests",
       [&](const std::string& s, const YAML::Node&) {
         row(s, RowStatus::unsupported,
             "modelgw limits requests per minute (rate_limits.*), not requests in flight");
       }},
      {"global_max_parallel_requests",
       [&](const std::string& s, const YAML::Node&) {
         row(s, RowStatus::unsupported,
             "modelgw limits requests per minute (rate_limits.*), not requests in flight");
       }},
      {"background_health_checks",
       [&](const std::string& s, const YAML::Node&) {
         row(s, RowStatus::unsupported,
             "modelgw probes no model; GET /healthz and /readyz report the gateway");
       }},
  };
  for (const char* key : {"alerting", "alerting_threshold", "alert_types", "alert_to_webhook_url",
                          "slack_alerting_params", "alerting_args"}) {
    general_keys[key] = [&](const std::string& s, const YAML::Node&) {
      row(s, RowStatus::unsupported,
          "modelgw sends no alerts: scrape GET /metrics (Prometheus, docs/METRICS.md) and alert there");
    };
  }
  for (const char* key : {"allowed_routes", "public_routes", "admin_only_routes"}) {
    general_keys[key] = [&](const std::string& s, const YAML::Node&) {
      row(s, RowStatus::unsupported,
          "endpoint access follows the scopes of each key (modelgw keys create --scopes)");
    };
  }

  auto read_section = [&](const YAML::Node& section, const std::string& name,
                          std::map<std::string, Handler>& handlers) {
    if (!section) return;
    if (!section.IsMap()) {
      if (!section.IsNull()) row(name, RowStatus::unsupported, "not a mapping; ignored");
      return;
    }
    for (const auto& kv : section) {
      const std::string key = kv.first.IsScalar() ? kv.first.Scalar() : "?";
      const std::string setting = name + "." + key;
      if (auto h = handlers.find(key); h != handlers.end()) {
        h->second(setting, kv.second);
      } else {
        row(setting, RowStatus::unsupported, "no modelgw equivalent");
      }
    }
  };
  read_section(router, "router_settings", router_keys);
  read_section(lsettings, "litellm_settings", litellm_keys);
  read_section(general, "general_settings", general_keys);

  if (timeout_s) {
    out.defaults.timeout_ms = seconds_to_ms(*timeout_s);
    row(timeout_setting, RowStatus::imported,
        "timeout_ms " + std::to_string(*out.defaults.timeout_ms) +
            " (the whole call) on every provider whose deployments set no timeout");
  }
  if (retries) {
    const auto n = static_cast<std::int64_t>(std::max(0.0, retries->first));
    out.num_retries = n;
    out.num_retries_setting = retries->second;
    draft.retry_max_attempts = std::clamp<std::int64_t>(n + 1, 1, 5);
    row(retries->second, n + 1 <= 5 ? RowStatus::imported : RowStatus::approximated,
        "retry.max_attempts: " + std::to_string(*draft.retry_max_attempts) + " (" + std::to_string(n) +
            (n == 1 ? " retry" : " retries") + std::string(" after the first try") +
            (n + 1 <= 5 ? std::string(")") : std::string("; modelgw tries one model at most 5 times)")) +
            "; retryable failures only (429, 5xx, connection, timeout), with backoff");
  }
  if (general && child(general, "master_key")) {
    row("virtual keys (LiteLLM's database)", RowStatus::by_hand,
        "LiteLLM keys cannot be carried over (modelgw stores its own, hashed); per client:\nmodelgw tenants "
        "create " +
            tenant + "\nmodelgw keys create --tenant " + tenant + " --scopes chat");
  }
  for (const auto& kv : root) {
    const std::string key = kv.first.IsScalar() ? kv.first.Scalar() : "?";
    if (key == "model_list" || key == "router_settings" || key == "litellm_settings" ||
        key == "general_settings" || key == "environment_variables") {
      continue;
    }
    row(key, RowStatus::unsupported, "no modelgw equivalent");
  }
  return out;
}

void report_environment(const YAML::Node& root, const SecretBook& secrets, std::vector<ReportRow>& rows) {
  const YAML::Node env = child(root, "environment_variables");
  std::set<std::string> listed;
  if (env.IsMap()) {
    for (const auto& kv : env) {
      const std::string name = kv.first.Scalar();
      listed.insert(name);
      const std::string setting = "environment_variables." + name;
      if (secrets.references().count(name)) {
        rows.push_back({setting, RowStatus::by_hand,
                        "export " + name + "=<its value> in modelgw's environment (the config reads ${" +
                            name + "}; the value is not copied)"});
      } else {
        rows.push_back({setting, RowStatus::unsupported, "not read by the written config; not copied"});
      }
    }
  }
  std::string names;
  for (const auto& [name, setting] : secrets.references()) {
    if (!listed.count(name)) names += (names.empty() ? "" : " ") + name;
  }
  if (!names.empty()) {
    rows.push_back(
        {"environment", RowStatus::by_hand,
         "set in modelgw's environment (systemd: an EnvironmentFile), as LiteLLM had them:\n" + names});
  }
}

}  // namespace modelgw::importer
