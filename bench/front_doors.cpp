#include "front_doors.h"

#include "http_connection.h"
#include "http_wire.h"
#include "report_format.h"

#include <stdexcept>

namespace bench {
namespace {

constexpr int kDoorMaxTokens = 1024;  // the Messages API requires max_tokens
constexpr double kDoorCpuTarget = 2.0;
constexpr double kDoorRpsTarget = 0.5;
constexpr double kDoorP99Target = 2.0;

// One front door: the request through nginx (the upstream's model and key,
// as the vendor is sent it) and through modelgw (the alias, the money
// tenant's key and feature).
struct Door {
  const char* key;  // in the JSON
  const char* label;
  std::string nginx_request;
  std::string modelgw_request;
  const char* answer_mark;  // in a good answer's body
};

std::string content_of(const std::string& chat_body) {
  return nlohmann::json::parse(chat_body).at("messages").at(0).at("content").get<std::string>();
}

std::string responses_body(const std::string& model, const std::string& content) {
  return nlohmann::json{{"model", model}, {"input", content}, {"store", false}}.dump();
}

std::string messages_body(const std::string& model, const std::string& content) {
  return nlohmann::json{{"model", model},
                        {"max_tokens", kDoorMaxTokens},
                        {"messages", {{{"role", "user"}, {"content", content}}}}}
      .dump();
}

// Anthropic's clients send the key in x-api-key and the API's version.
std::string anthropic_headers(const std::string& key) {
  return "x-api-key: " + key + "\r\nanthropic-version: 2023-06-01\r\n";
}

// One request first, so a broken path fails with a clear message instead of
// a pass full of errors.
void check(std::uint16_t port, const std::string& request, const std::string& what, const char* mark) {
  HttpConnection conn(port, 10000);
  if (int status = conn.exchange(request); status != 200) {
    throw std::runtime_error(what + " answered HTTP " + std::to_string(status) + ": " +
                             conn.body().substr(0, 300));
  }
  if (conn.body().find(mark) == std::string::npos)
    throw std::runtime_error(what + " answered without " + mark + ": " + conn.body().substr(0, 300));
}

double over(double v, double base) {
  return base > 0 && v >= 0 ? v / base : -1.0;
}

std::string verdict(double ratio, const char* op, double target, bool met) {
  if (ratio < 0) return "n/a";
  return strf("%.2fx (%s %.1fx: %s)", ratio, op, target, met ? "MET" : "NOT MET");
}

nlohmann::json pass_json(const PassResult& p) {
  nlohmann::json j = {{"requests", p.load.requests},
                      {"errors", p.load.errors + p.load.warmup_errors},
                      {"rps", p.load.rps},
                      {"latency", latency_json(p.load.latency)},
                      {"proxy_cpu_us_per_request", p.gateway_cpu_us_per_request},
                      {"mock_cpu_us_per_request", p.upstream_cpu_us_per_request}};
  if (!p.cpu_by_thread_us.empty()) j["proxy_cpu_by_thread_us_per_request"] = p.cpu_by_thread_us;
  return j;
}

}  // namespace

nlohmann::json run_front_doors(const ScenarioSettings& s, const Environment& env, const NginxProxy* nginx,
                               const std::string& chat_body, const ScenarioHooks& hooks,
                               std::ostream& summary) {
  nlohmann::json out = nlohmann::json::object();
  const std::string content = content_of(chat_body);
  const std::string money = env.money_key();
  const std::string feature = Environment::money_headers();
  const Door doors[] = {
      {"responses", "POST /v1/responses (native, store false)",
       build_request("POST", "/v1/responses", Environment::kUpstreamKey,
                     responses_body("gpt-4o-mini", content)),
       build_request("POST", "/v1/responses", money, responses_body(Environment::kNativeAlias, content),
                     feature),
       R"("status":"completed")"},
      {"messages", "POST /v1/messages (anthropic, native)",
       build_request("POST", "/v1/messages", "", messages_body(Environment::kAnthropicModel, content),
                     anthropic_headers(Environment::kUpstreamKey)),
       build_request("POST", "/v1/messages", "", messages_body(Environment::kAnthropicAlias, content),
                     anthropic_headers(money) + feature),
       R"("stop_reason":"end_turn")"},
  };
  for (const Door& d : doors) {
    check(env.gateway_port(), d.modelgw_request, std::string("modelgw (money path) ") + d.label,
          d.answer_mark);
    if (nginx != nullptr)
      check(nginx->port(), d.nginx_request, std::string("nginx ") + d.label, d.answer_mark);
  }

  const auto run = [&](const std::string& label, std::uint16_t port, pid_t pid, const std::string& request) {
    hooks.progress("(g) " + label + ": C=" + std::to_string(s.concurrency) + ", " +
                   strf("%g s warm-up + %g s", s.warmup_s, s.duration_s));
    PassResult p = run_pass(port, request, s.concurrency, s.warmup_s, s.duration_s, s.request_timeout_ms, pid,
                            env.upstream_pid(), hooks.interrupted);
    hooks.progress(strf("  %llu ok, %llu errors, %.0f rps, p99 %lld us, CPU %.1f us/request",
                        static_cast<unsigned long long>(p.load.requests),
                        static_cast<unsigned long long>(p.load.errors + p.load.warmup_errors), p.load.rps,
                        static_cast<long long>(p.load.latency.p99_us), p.gateway_cpu_us_per_request));
    for (const auto& [reason, n] : p.load.error_reasons)
      hooks.progress("    " + std::to_string(n) + " x " + reason);
    hooks.after_pass();
    return p;
  };
  const auto interrupted = [&] { return hooks.interrupted != nullptr && hooks.interrupted->load(); };

  summary << strf(
      "(g) front_doors: closed loop, C=%d on one epoll thread, %g s measured; modelgw on the "
      "money path\n",
      s.concurrency, s.duration_s);
  summary << strf("  %-42s %12s %12s  %s\n", "", "nginx", "modelgw", "modelgw / nginx (target)");
  std::uint64_t errors = 0;
  for (const Door& d : doors) {
    if (interrupted()) break;
    PassResult ng;
    if (nginx != nullptr)
      ng = run(std::string(d.label) + " through nginx", nginx->port(), nginx->pid(), d.nginx_request);
    if (interrupted()) break;
    const PassResult gw = run(std::string(d.label) + " through modelgw (money path)", env.gateway_port(),
                              env.gateway_pid(), d.modelgw_request);
    const bool have = nginx != nullptr;
    const double r_cpu = have ? over(gw.gateway_cpu_us_per_request, ng.gateway_cpu_us_per_request) : -1;
    const double r_rps = have ? over(gw.load.rps, ng.load.rps) : -1;
    const double r_p99 =
        have ? over(static_cast<double>(gw.load.latency.p99_us), static_cast<double>(ng.load.latency.p99_us))
             : -1;
    const auto ng_text = [&](std::string text) { return have ? text : std::string("n/a"); };
    const std::uint64_t e = gw.load.errors + gw.load.warmup_errors + ng.load.errors + ng.load.warmup_errors;
    errors += e;
    summary << "  " << d.label << "\n";
    summary << strf("  %-42s %12s %12.1f  %s\n", "  proxy CPU per request (us)",
                    ng_text(strf("%.1f", ng.gateway_cpu_us_per_request)).c_str(),
                    gw.gateway_cpu_us_per_request,
                    verdict(r_cpu, "<=", kDoorCpuTarget, r_cpu >= 0 && r_cpu <= kDoorCpuTarget).c_str());
    if (const std::string split = cpu_by_thread_text(gw); !split.empty())
      summary << "      modelgw by thread: " << split << "\n";
    summary << strf("  %-42s %12s %12.0f  %s\n", "  max RPS", ng_text(strf("%.0f", ng.load.rps)).c_str(),
                    gw.load.rps, verdict(r_rps, ">=", kDoorRpsTarget, r_rps >= kDoorRpsTarget).c_str());
    summary << strf("  %-42s %12s %12s  %s\n", "  p50 / p99 latency (us)",
                    ng_text(strf("%lld/%lld", static_cast<long long>(ng.load.latency.p50_us),
                                 static_cast<long long>(ng.load.latency.p99_us)))
                        .c_str(),
                    strf("%lld/%lld", static_cast<long long>(gw.load.latency.p50_us),
                         static_cast<long long>(gw.load.latency.p99_us))
                        .c_str(),
                    verdict(r_p99, "<=", kDoorP99Target, r_p99 >= 0 && r_p99 <= kDoorP99Target).c_str());
    summary << strf("  %-42s %12s %12.1f\n", "  mock CPU per request (us)",
                    ng_text(strf("%.1f", ng.upstream_cpu_us_per_request)).c_str(),
                    gw.upstream_cpu_us_per_request);
    summary << strf(
        "  %-42s %12s %12llu\n", "  errors",
        ng_text(strf("%llu", static_cast<unsigned long long>(ng.load.errors + ng.load.warmup_errors)))
            .c_str(),
        static_cast<unsigned long long>(gw.load.errors + gw.load.warmup_errors));
    out[d.key] = {{"nginx", have ? pass_json(ng) : nlohmann::json()},
                  {"modelgw_money", pass_json(gw)},
                  {"ratios_modelgw_over_nginx",
                   {{"cpu_per_request", r_cpu}, {"max_rps", r_rps}, {"p99_latency", r_p99}}}};
  }
  summary << "(g) front_doors: errors " << errors << "\n";
  out["targets"] = {
      {"cpu_per_request", kDoorCpuTarget}, {"max_rps", kDoorRpsTarget}, {"p99_latency", kDoorP99Target}};
  out["errors"] = errors;
  return out;
}

}  // namespace bench
