#include "comparison_report.h"
#include "report_format.h"

#include <cstdio>

namespace bench {
namespace {

// modelgw / nginx, or a negative value when either side is missing.
double ratio(double gateway, double nginx) {
  return gateway >= 0 && nginx > 0 ? gateway / nginx : -1;
}

std::string ratio_text(double r) {
  return r < 0 ? std::string("n/a") : strf("%.2fx", r);
}

std::string verdict(bool measured, bool met) {
  return !measured ? "not measured" : met ? "MET" : "NOT MET";
}

std::string num(double v, const char* format = "%.1f") {
  return v < 0 ? std::string("-") : strf(format, v);
}

void row(std::ostream& out, const std::string& label, const std::string& nginx, const std::string& gateway,
         const std::string& r, const std::string& target) {
  out << strf("  %-34s %14s %14s %9s  %s\n", label.c_str(), nginx.c_str(), gateway.c_str(), r.c_str(),
              target.c_str());
}

double ms(std::int64_t us) {
  return static_cast<double>(us) / 1000.0;
}

// RSS growth per open stream in KB (1000 bytes, as the issue counts).
double kb_per_stream(const std::optional<SseScenario>& s) {
  if (!s || s->open_at_peak <= 0) return -1;
  return s->rss_per_stream_kib() * 1.024;
}

template <class T, class F>
double field(const std::optional<T>& v, F f) {
  return v ? f(*v) : -1.0;
}

std::uint64_t open_loop_errors(const std::optional<OpenLoopResult>& r) {
  return r ? r->errors + r->unsent : 0;
}

void print_reasons(std::ostream& out, const char* who, const std::map<std::string, std::uint64_t>& reasons) {
  for (const auto& [reason, count] : reasons)
    out << "      " << who << " error x" << count << ": " << reason << "\n";
}

nlohmann::json open_loop_json(const OpenLoopResult& r) {
  return {{"rate", r.rate},
          {"scheduled", r.scheduled},
          {"ok", r.ok},
          {"errors", r.errors},
          {"unsent", r.unsent},
          {"error_reasons", r.error_reasons},
          {"latency", latency_json(r.latency)}};
}

nlohmann::json target_json(const TargetRun& t) {
  nlohmann::json j = nlohmann::json::object();
  if (t.saturation) {
    const auto& l = t.saturation->load;
    j["saturation"] = {{"concurrency", l.concurrency},
                       {"requests", l.requests},
                       {"errors", l.errors + l.warmup_errors},
                       {"rps", l.rps},
                       {"latency", latency_json(l.latency)},
                       {"proxy_cpu_us_per_request", t.saturation->gateway_cpu_us_per_request},
                       {"upstream_cpu_us_per_request", t.saturation->upstream_cpu_us_per_request}};
    if (!t.saturation->cpu_by_thread_us.empty())
      j["saturation"]["proxy_cpu_by_thread_us_per_request"] = t.saturation->cpu_by_thread_us;
  }
  if (t.latency) j["latency"] = open_loop_json(*t.latency);
  if (t.sse) {
    const auto& s = *t.sse;
    j["sse"] = {{"requested", s.result.requested},
                {"completed", s.result.completed},
                {"errors", s.result.errors},
                {"error_kinds", s.result.error_kinds},
                {"error_samples", s.result.error_samples},
                {"peak_open", s.result.peak_open},
                {"first_event_latency", latency_json(s.result.first_event_latency)},
                {"rss_before_kib", s.rss_before_kib},
                {"rss_at_peak_kib", s.rss_at_peak_kib},
                {"open_at_peak", s.open_at_peak},
                {"rss_per_open_stream_kib", s.rss_per_stream_kib()},
                {"threads_peak", s.threads_peak},
                {"cpu_s", s.cpu_s}};
  }
  if (t.attack) {
    const auto& a = *t.attack;
    j["attack"] = {{"attackers", a.attack.requested},
                   {"open_when_measured", a.open_when_measured},
                   {"open_at_end", a.attack.open_now},
                   {"peak_open", a.attack.peak_open},
                   {"closed_by_server", a.attack.closed_by_server},
                   {"connect_failures", a.attack.connect_failures},
                   {"bytes_trickled", a.attack.bytes_trickled},
                   {"rss_before_kib", a.rss_before_kib},
                   {"rss_peak_kib", a.rss_peak_kib},
                   {"client", open_loop_json(a.client)}};
  }
  return j;
}

constexpr double kMoneyOverPlain = 1.10;  // issue 27: the money path's CPU over the plain path's
constexpr double kNewKeyOverPlain = 1.5;  // issue 27: a new Idempotency-Key over none

double errors_of(const std::optional<PassResult>& p) {
  return field(p,
               [](const PassResult& x) { return static_cast<double>(x.load.errors + x.load.warmup_errors); });
}

// (a)'s rows of one modelgw pass against nginx's; `prefix` names the path.
void saturation_rows(std::ostream& out, const std::optional<PassResult>& ng,
                     const std::optional<PassResult>& gw, const std::string& prefix) {
  const double r_cpu = ratio(cpu_of(gw), cpu_of(ng));
  const double r_rps = ratio(rps_of(gw), rps_of(ng));
  const double r_p99 = ratio(p99_of(gw), p99_of(ng));
  row(out, prefix + "proxy CPU per request (us)", num(cpu_of(ng)), num(cpu_of(gw)), ratio_text(r_cpu),
      "<= 2x: " + verdict(r_cpu >= 0, r_cpu >= 0 && r_cpu <= 2));
  row(out, prefix + "max RPS", num(rps_of(ng), "%.0f"), num(rps_of(gw), "%.0f"), ratio_text(r_rps),
      ">= 0.5x: " + verdict(r_rps >= 0, r_rps >= 0.5));
  const auto p50_p99 = [](const std::optional<PassResult>& p) {
    return p ? strf("%lld/%lld", static_cast<long long>(p->load.latency.p50_us),
                    static_cast<long long>(p->load.latency.p99_us))
             : std::string("-");
  };
  row(out, prefix + "p50 / p99 latency (us)", p50_p99(ng), p50_p99(gw), ratio_text(r_p99),
      "p99 <= 2x: " + verdict(r_p99 >= 0, r_p99 >= 0 && r_p99 <= 2));
  row(out, prefix + "mock CPU per request (us)",
      num(field(ng, [](const PassResult& p) { return p.upstream_cpu_us_per_request; })),
      num(field(gw, [](const PassResult& p) { return p.upstream_cpu_us_per_request; })), "", "");
  row(out, prefix + "errors", num(errors_of(ng), "%.0f"), num(errors_of(gw), "%.0f"), "", "");
  if (ng && prefix.empty()) print_reasons(out, "nginx", ng->load.error_reasons);
  if (gw) print_reasons(out, prefix.empty() ? "modelgw" : "modelgw money", gw->load.error_reasons);
}

// (b)'s rows of one modelgw pass against nginx's.
void latency_rows(std::ostream& out, const std::optional<OpenLoopResult>& direct,
                  const std::optional<OpenLoopResult>& ng, const std::optional<OpenLoopResult>& gw,
                  const std::string& prefix) {
  const double mock = direct ? static_cast<double>(direct->latency.p50_us) : -1;
  const auto p = [](const std::optional<OpenLoopResult>& r, int which) {
    if (!r || r->ok == 0) return -1.0;
    return static_cast<double>(which == 50 ? r->latency.p50_us : r->latency.p99_us);
  };
  row(out, prefix + "p50 / p99 (us)", strf("%.0f/%.0f", p(ng, 50), p(ng, 99)),
      strf("%.0f/%.0f", p(gw, 50), p(gw, 99)), "", "");
  const double ng_added = mock >= 0 && p(ng, 50) >= 0 ? p(ng, 50) - mock : -1;
  const double gw_added = mock >= 0 && p(gw, 50) >= 0 ? p(gw, 50) - mock : -1;
  const double r_added = ratio(gw_added, ng_added);
  row(out, prefix + "added median latency (us)", num(ng_added, "%.0f"), num(gw_added, "%.0f"),
      ratio_text(r_added), "<= 1.1x: " + verdict(r_added >= 0, r_added >= 0 && r_added <= 1.1));
  row(out, prefix + "errors / unsent", num(double(open_loop_errors(ng)), "%.0f"),
      num(double(open_loop_errors(gw)), "%.0f"), "", "");
  if (ng && prefix.empty()) print_reasons(out, "nginx", ng->error_reasons);
  if (gw) print_reasons(out, prefix.empty() ? "modelgw" : "modelgw money", gw->error_reasons);
}

}  // namespace

std::uint64_t Comparison::failures() const {
  // (a) and (b) from every round's passes, not only the median ones shown.
  const auto pass_errors = [](const std::optional<PassResult>& p) -> std::uint64_t {
    return p ? p->load.errors + p->load.warmup_errors : 0;
  };
  std::uint64_t n = 0;
  for (const Round& r : rounds) {
    n += pass_errors(r.nginx) + pass_errors(r.plain) + pass_errors(r.money) + pass_errors(r.keyed);
    n += open_loop_errors(r.direct) + open_loop_errors(r.nginx_latency) + open_loop_errors(r.plain_latency) +
         open_loop_errors(r.money_latency);
  }
  for (const TargetRun* t : {&nginx, &gateway, &money}) {
    if (t->sse) n += static_cast<std::uint64_t>(t->sse->result.requested - t->sse->result.completed);
  }
  return n;
}

void print_comparison(const Comparison& c, std::ostream& out) {
  const auto& s = c.settings;
  out << "\n=== modelgw beside nginx (same run, same mock upstream; ratio = modelgw / nginx) ===\n";
  out << "nginx: " << (c.nginx_error.empty() ? c.nginx_version : "NOT RUN: " + c.nginx_error)
      << ", one worker, upstream keepalive, proxy_buffering off\n";
  out << "modelgw: API-key auth, PII mode " << c.pii_mode << ", usage written to SQLite, access log"
      << (c.access_log ? " on" : " off") << "; money path: the same plus two budgets, credit, rate limits\n";
  if (c.rounds.size() > 1) {
    out << "each figure below is its proxy's pass with the median of " << c.rounds.size()
        << " rounds; the ratios of passes side by side follow (a, b)\n";
  }
  out << strf("  %-34s %14s %14s %9s  %s\n", "", "nginx", "modelgw", "ratio", "target");

  const auto& ng = c.nginx;
  const auto& gw = c.gateway;
  if (ng.saturation || gw.saturation) {
    out << strf("(a) saturation: closed loop, C=%d on one epoll thread, %zu-byte body, %.0f s measured\n",
                s.concurrency, c.body_bytes, s.duration_s);
    saturation_rows(out, ng.saturation, gw.saturation, "");
    if (c.money.saturation) {
      out << "  money path: tenant money, X-Feature: search (month and feature day budgets, credit, rate "
             "limits)\n";
      saturation_rows(out, ng.saturation, c.money.saturation, "money: ");
      const double r = ratio(cpu_of(c.money.saturation), cpu_of(gw.saturation));
      row(out, "money CPU over plain", "", "", ratio_text(r),
          strf("<= %.2fx: ", kMoneyOverPlain) + verdict(r >= 0, r >= 0 && r <= kMoneyOverPlain));
    }
    if (c.idempotency_key) {
      out << "  a new Idempotency-Key on every request (plain path); columns: without, with, ratio\n";
      const double r_cpu = ratio(cpu_of(c.idempotency_key), cpu_of(gw.saturation));
      const double r_rps = ratio(rps_of(c.idempotency_key), rps_of(gw.saturation));
      row(out, "new key: CPU per request (us)", num(cpu_of(gw.saturation)), num(cpu_of(c.idempotency_key)),
          ratio_text(r_cpu),
          strf("<= %.1fx: ", kNewKeyOverPlain) +
              verdict(r_cpu >= 0, r_cpu >= 0 && r_cpu <= kNewKeyOverPlain));
      row(out, "new key: max RPS", num(rps_of(gw.saturation), "%.0f"), num(rps_of(c.idempotency_key), "%.0f"),
          ratio_text(r_rps), "");
      row(out, "new key: errors", "", num(errors_of(c.idempotency_key), "%.0f"), "", "");
      print_reasons(out, "new key", c.idempotency_key->load.error_reasons);
    }
    // Where modelgw's CPU per request went, by kind of thread.
    const std::pair<const char*, const std::optional<PassResult>*> passes[] = {
        {"plain", &gw.saturation}, {"money", &c.money.saturation}, {"new key", &c.idempotency_key}};
    bool titled = false;
    for (const auto& [name, pass] : passes) {
      const std::string split = *pass ? cpu_by_thread_text(**pass) : std::string();
      if (split.empty()) continue;
      if (!titled) out << "  modelgw's CPU per request by thread (us; mgw-loop: the event loops)\n";
      titled = true;
      out << strf("    %-8s %s\n", name, split.c_str());
    }
  }

  if (ng.latency || gw.latency) {
    out << strf("(b) latency: open loop at %.0f req/s, %.0f s measured; added = p50 - the mock's own p50\n",
                s.rate, s.latency_duration_s);
    if (c.direct_latency) {
      out << strf("  %-34s %14lld us p50, %lld us p99\n", "mock directly",
                  static_cast<long long>(c.direct_latency->latency.p50_us),
                  static_cast<long long>(c.direct_latency->latency.p99_us));
    }
    latency_rows(out, c.direct_latency, ng.latency, gw.latency, "");
    if (c.money.latency) latency_rows(out, c.direct_latency, ng.latency, c.money.latency, "money: ");
  }

  print_rounds(c.rounds, out);

  if (ng.sse || gw.sse) {
    out << strf("(c) SSE: %d streams opened at %.0f/s, one event every %d ms, %d content events each\n",
                s.sse_streams, s.sse_open_rate, s.sse_interval_ms, s.sse_events);
    const auto completed = [](const std::optional<SseScenario>& x) {
      return x ? strf("%d/%d", x->result.completed, x->result.requested) : std::string("-");
    };
    const bool all = ng.sse && gw.sse && ng.sse->all_completed() && gw.sse->all_completed();
    row(out, "completed", completed(ng.sse), completed(gw.sse), "",
        "all: " + verdict(gw.sse.has_value(), gw.sse && gw.sse->all_completed()));
    const double ng_ttfb =
        field(ng.sse, [](const SseScenario& x) { return ms(x.result.first_event_latency.p50_us); });
    const double gw_ttfb =
        field(gw.sse, [](const SseScenario& x) { return ms(x.result.first_event_latency.p50_us); });
    const double r_ttfb = ratio(gw_ttfb, ng_ttfb);
    row(out, "first event p50 (ms)", num(ng_ttfb, "%.2f"), num(gw_ttfb, "%.2f"), ratio_text(r_ttfb),
        "<= 2x: " + verdict(r_ttfb >= 0, r_ttfb >= 0 && r_ttfb <= 2 && all));
    row(out, "first event p99 (ms)",
        num(field(ng.sse, [](const SseScenario& x) { return ms(x.result.first_event_latency.p99_us); }),
            "%.2f"),
        num(field(gw.sse, [](const SseScenario& x) { return ms(x.result.first_event_latency.p99_us); }),
            "%.2f"),
        "", "");
    const double ng_kb = kb_per_stream(ng.sse);
    const double gw_kb = kb_per_stream(gw.sse);
    row(out, "RSS per open stream (KB)", num(ng_kb), num(gw_kb), ratio_text(ratio(gw_kb, ng_kb)),
        "modelgw <= 20 KB: " + verdict(gw_kb >= 0, gw_kb >= 0 && gw_kb <= 20));
    row(out, "peak open / open at RSS sample",
        ng.sse ? strf("%d/%d", ng.sse->result.peak_open, ng.sse->open_at_peak) : "-",
        gw.sse ? strf("%d/%d", gw.sse->result.peak_open, gw.sse->open_at_peak) : "-", "", "");
    row(out, "RSS before -> at peak (MiB)",
        ng.sse ? strf("%.1f->%.1f", ng.sse->rss_before_kib / 1024.0, ng.sse->rss_at_peak_kib / 1024.0) : "-",
        gw.sse ? strf("%.1f->%.1f", gw.sse->rss_before_kib / 1024.0, gw.sse->rss_at_peak_kib / 1024.0) : "-",
        "", "");
    row(out, "peak threads",
        num(field(ng.sse, [](const SseScenario& x) { return double(x.threads_peak); }), "%.0f"),
        num(field(gw.sse, [](const SseScenario& x) { return double(x.threads_peak); }), "%.0f"), "", "");
    const double ng_cpu = field(ng.sse, [](const SseScenario& x) { return x.cpu_s; });
    const double gw_cpu = field(gw.sse, [](const SseScenario& x) { return x.cpu_s; });
    row(out, "proxy CPU over the phase (s)", num(ng_cpu, "%.2f"), num(gw_cpu, "%.2f"),
        ratio_text(ratio(gw_cpu, ng_cpu)), "");
    for (const auto* side : {&ng.sse, &gw.sse}) {
      if (!*side) continue;
      const char* who = side == &ng.sse ? "nginx" : "modelgw";
      for (const auto& [kind, count] : (*side)->result.error_kinds)
        out << "      " << who << " error x" << count << ": " << kind << "\n";
      for (const auto& sample : (*side)->result.error_samples) out << "        e.g. " << sample << "\n";
    }
  }

  if (ng.attack || gw.attack) {
    out << strf(
        "(d) attacker: %d connections (half idle, half trickling a head 1 byte / 2 s, reopened when "
        "closed);\n"
        "    a normal client at %.0f req/s for %.0f s meanwhile (timeout %d ms)\n",
        s.attackers, s.attack_rate, s.attack_duration_s, s.attack_timeout_ms);
    const auto attack = [](const std::optional<AttackScenario>& a, auto f) {
      return a ? f(*a) : std::string("-");
    };
    row(out, "attackers open when measured",
        attack(ng.attack, [](const AttackScenario& a) { return strf("%d", a.open_when_measured); }),
        attack(gw.attack, [](const AttackScenario& a) { return strf("%d", a.open_when_measured); }), "", "");
    row(out, "closed by the proxy meanwhile",
        attack(ng.attack, [](const AttackScenario& a) { return strf("%ld", a.attack.closed_by_server); }),
        attack(gw.attack, [](const AttackScenario& a) { return strf("%ld", a.attack.closed_by_server); }), "",
        "");
    const auto pct = [](const std::optional<AttackScenario>& a, int which) {
      if (!a || a->client.ok == 0) return -1.0;
      return ms(which == 50 ? a->client.latency.p50_us : a->client.latency.p99_us);
    };
    row(out, "client p50 (ms)", num(pct(ng.attack, 50), "%.2f"), num(pct(gw.attack, 50), "%.2f"),
        ratio_text(ratio(pct(gw.attack, 50), pct(ng.attack, 50))), "");
    const double gw_p99 = pct(gw.attack, 99);
    const bool gw_clean = gw.attack && gw.attack->client.errors == 0 && gw.attack->client.unsent == 0;
    row(out, "client p99 (ms)", num(pct(ng.attack, 99), "%.2f"), num(gw_p99, "%.2f"),
        ratio_text(ratio(gw_p99, pct(ng.attack, 99))),
        "modelgw < 50 ms, no error: " +
            verdict(gw.attack.has_value(), gw_p99 >= 0 && gw_p99 < 50 && gw_clean));
    row(out, "client ok / errors / unsent",
        attack(ng.attack,
               [](const AttackScenario& a) {
                 return strf("%llu/%llu/%llu", (unsigned long long)a.client.ok,
                             (unsigned long long)a.client.errors, (unsigned long long)a.client.unsent);
               }),
        attack(gw.attack,
               [](const AttackScenario& a) {
                 return strf("%llu/%llu/%llu", (unsigned long long)a.client.ok,
                             (unsigned long long)a.client.errors, (unsigned long long)a.client.unsent);
               }),
        "", "");
    row(out, "RSS before -> peak (MiB)",
        attack(ng.attack,
               [](const AttackScenario& a) {
                 return strf("%.1f->%.1f", a.rss_before_kib / 1024.0, a.rss_peak_kib / 1024.0);
               }),
        attack(gw.attack,
               [](const AttackScenario& a) {
                 return strf("%.1f->%.1f", a.rss_before_kib / 1024.0, a.rss_peak_kib / 1024.0);
               }),
        "", "");
    if (ng.attack) print_reasons(out, "nginx", ng.attack->client.error_reasons);
    if (gw.attack) print_reasons(out, "modelgw", gw.attack->client.error_reasons);
  }
}

nlohmann::json comparison_json(const Comparison& c) {
  const auto& s = c.settings;
  nlohmann::json j;
  if (c.rounds.size() > 1) j["paired_rounds"] = rounds_json(c.rounds);
  j["settings"] = {{"rounds", s.rounds},
                   {"concurrency", s.concurrency},
                   {"duration_s", s.duration_s},
                   {"rate", s.rate},
                   {"latency_duration_s", s.latency_duration_s},
                   {"sse_streams", s.sse_streams},
                   {"sse_open_rate", s.sse_open_rate},
                   {"sse_interval_ms", s.sse_interval_ms},
                   {"sse_events", s.sse_events},
                   {"attackers", s.attackers},
                   {"attack_open_rate", s.attack_open_rate},
                   {"attack_rate", s.attack_rate},
                   {"attack_duration_s", s.attack_duration_s},
                   {"body_bytes", c.body_bytes},
                   {"pii_mode", c.pii_mode}};
  j["nginx_version"] = c.nginx_version;
  if (!c.nginx_error.empty()) j["nginx_error"] = c.nginx_error;
  if (c.direct_latency) j["mock_direct_latency"] = open_loop_json(*c.direct_latency);
  j["nginx"] = target_json(c.nginx);
  j["modelgw"] = target_json(c.gateway);
  j["modelgw_money"] = target_json(c.money);
  if (c.idempotency_key) {
    TargetRun keyed;
    keyed.saturation = c.idempotency_key;
    j["modelgw_idempotency_key"] = target_json(keyed)["saturation"];
  }
  nlohmann::json r = nlohmann::json::object();
  const auto put = [&](const char* name, double v) {
    if (v >= 0) r[name] = v;
  };
  if (c.nginx.saturation && c.gateway.saturation) {
    put("cpu_per_request", ratio(c.gateway.saturation->gateway_cpu_us_per_request,
                                 c.nginx.saturation->gateway_cpu_us_per_request));
    put("max_rps", ratio(c.gateway.saturation->load.rps, c.nginx.saturation->load.rps));
  }
  if (c.nginx.saturation && c.gateway.saturation)
    put("p99_latency", ratio(p99_of(c.gateway.saturation), p99_of(c.nginx.saturation)));
  if (c.nginx.saturation && c.money.saturation) {
    put("money_cpu_per_request", ratio(cpu_of(c.money.saturation), cpu_of(c.nginx.saturation)));
    put("money_max_rps", ratio(rps_of(c.money.saturation), rps_of(c.nginx.saturation)));
    put("money_p99_latency", ratio(p99_of(c.money.saturation), p99_of(c.nginx.saturation)));
  }
  if (c.direct_latency && c.nginx.latency) {
    const double d = static_cast<double>(c.direct_latency->latency.p50_us);
    const double ng_added = static_cast<double>(c.nginx.latency->latency.p50_us) - d;
    if (c.gateway.latency)
      put("added_p50_latency", ratio(static_cast<double>(c.gateway.latency->latency.p50_us) - d, ng_added));
    if (c.money.latency)
      put("money_added_p50_latency",
          ratio(static_cast<double>(c.money.latency->latency.p50_us) - d, ng_added));
  }
  if (c.nginx.sse && c.gateway.sse) {
    put("sse_first_event_p50", ratio(static_cast<double>(c.gateway.sse->result.first_event_latency.p50_us),
                                     static_cast<double>(c.nginx.sse->result.first_event_latency.p50_us)));
    put("sse_rss_per_stream", ratio(c.gateway.sse->rss_per_stream_kib(), c.nginx.sse->rss_per_stream_kib()));
  }
  if (c.nginx.attack && c.gateway.attack) {
    put("attack_client_p99", ratio(static_cast<double>(c.gateway.attack->client.latency.p99_us),
                                   static_cast<double>(c.nginx.attack->client.latency.p99_us)));
  }
  j["ratios_modelgw_over_nginx"] = r;
  nlohmann::json plain = nlohmann::json::object();  // over modelgw's plain path, same run
  if (c.gateway.saturation && c.money.saturation) {
    const double v = ratio(cpu_of(c.money.saturation), cpu_of(c.gateway.saturation));
    if (v >= 0) plain["money_cpu_per_request"] = v;
  }
  if (c.gateway.saturation && c.idempotency_key) {
    const double cpu = ratio(cpu_of(c.idempotency_key), cpu_of(c.gateway.saturation));
    const double rps = ratio(rps_of(c.idempotency_key), rps_of(c.gateway.saturation));
    if (cpu >= 0) plain["idempotency_key_cpu_per_request"] = cpu;
    if (rps >= 0) plain["idempotency_key_max_rps"] = rps;
  }
  j["ratios_over_modelgw_plain"] = plain;
  j["targets"] = {{"cpu_per_request", 2.0},
                  {"max_rps", 0.5},
                  {"p99_latency", 2.0},
                  {"added_p50_latency", 1.1},
                  {"money_cpu_over_plain", kMoneyOverPlain},
                  {"idempotency_key_cpu_over_plain", kNewKeyOverPlain}};
  j["failures"] = c.failures();
  return j;
}

}  // namespace bench
