#include "messages_embeddings.h"

#include "http_connection.h"
#include "http_wire.h"
#include "mock_embeddings.h"
#include "report_format.h"

#include <cstdint>
#include <stdexcept>
#include <string_view>

namespace bench {
namespace {

// The alias is the mock's model name, so nginx and modelgw are sent the same
// bytes (only the key differs), as (a)'s chat requests are.
static_assert(std::string_view(Environment::kEmbeddingAlias) == mock::kEmbeddingModel);

// The Messages API requires max_tokens; chat is sent the same, so the two
// requests hold the same conversation and the same bound.
constexpr int kMaxTokens = 1024;
constexpr double kMessagesTarget = 1.1;    // messages over chat (issue 26)
constexpr double kEmbeddingsTarget = 2.0;  // modelgw over nginx (issue 26)

std::string conversation(const std::string& chat_body, const char* model) {
  nlohmann::json b = nlohmann::json::parse(chat_body);
  b["model"] = model;
  b["max_tokens"] = kMaxTokens;
  return b.dump();
}

// Short passages, about 10 tokens each: the answer, not the request, is
// what this pass is about.
std::string embeddings_body() {
  nlohmann::json input = nlohmann::json::array();
  for (std::size_t i = 0; i < mock::kEmbeddingVectors; ++i)
    input.push_back("Passage " + std::to_string(i) +
                    ": the gateway relays this text to the embedding model.");
  return nlohmann::json{
      {"model", Environment::kEmbeddingAlias}, {"input", input}, {"encoding_format", "float"}}
      .dump();
}

// Anthropic's clients send the key in x-api-key and the API's version.
std::string messages_request(const std::string& key, const std::string& body) {
  return build_request("POST", "/v1/messages", "", body,
                       "x-api-key: " + key + "\r\nanthropic-version: 2023-06-01\r\n");
}

// One request first, so a broken path fails with a clear message instead of
// a pass full of errors. Returns the answer's body.
std::string check(std::uint16_t port, const std::string& request, const std::string& what) {
  HttpConnection conn(port, 10000);
  if (int status = conn.exchange(request); status != 200) {
    throw std::runtime_error(what + " answered HTTP " + std::to_string(status) + ": " +
                             conn.body().substr(0, 300));
  }
  return conn.body();
}

std::size_t count(std::string_view text, std::string_view needle) {
  std::size_t n = 0;
  for (auto at = text.find(needle); at != std::string_view::npos; at = text.find(needle, at + needle.size()))
    ++n;
  return n;
}

struct Pass {
  const char* label;
  PassResult result;
  std::uint64_t errors() const { return result.load.errors + result.load.warmup_errors; }
  double cpu() const { return result.gateway_cpu_us_per_request; }
};

nlohmann::json pass_json(const Pass& p) {
  return {{"requests", p.result.load.requests},
          {"errors", p.errors()},
          {"rps", p.result.load.rps},
          {"cpu_us_per_request", p.cpu()},
          {"mock_cpu_us_per_request", p.result.upstream_cpu_us_per_request}};
}

double over(double v, double base) {
  return base > 0 && v >= 0 ? v / base : -1.0;
}

std::string verdict(double ratio, double target) {
  if (ratio < 0) return "n/a";
  return strf("%.2fx (target <= %.1fx: %s)", ratio, target, ratio <= target ? "MET" : "NOT MET");
}

}  // namespace

nlohmann::json run_messages_embeddings(const ScenarioSettings& s, const Environment& env,
                                       const NginxProxy* nginx, const std::string& chat_body,
                                       const ScenarioHooks& hooks, std::ostream& summary) {
  nlohmann::json out = nlohmann::json::object();
  const std::string chat = build_request("POST", "/v1/chat/completions", env.gateway_key(),
                                         conversation(chat_body, Environment::kModelAlias));
  const std::string messages =
      messages_request(env.gateway_key(), conversation(chat_body, Environment::kAnthropicAlias));
  const std::string embeddings = embeddings_body();

  // The paths answer as they should before anything is measured: the
  // message is the mock's (relayed natively), the list has every vector.
  const std::string message = check(env.gateway_port(), messages, "modelgw POST /v1/messages");
  if (message.find(R"("type":"message")") == std::string::npos ||
      message.find(R"("stop_reason":"end_turn")") == std::string::npos) {
    throw std::runtime_error("modelgw POST /v1/messages did not answer with a message: " +
                             message.substr(0, 300));
  }
  const std::string through_gateway =
      check(env.gateway_port(), build_request("POST", "/v1/embeddings", env.gateway_key(), embeddings),
            "modelgw POST /v1/embeddings");
  if (const std::size_t n = count(through_gateway, R"("embedding":[)"); n != mock::kEmbeddingVectors) {
    throw std::runtime_error("modelgw POST /v1/embeddings answered " + std::to_string(n) + " vectors, not " +
                             std::to_string(mock::kEmbeddingVectors));
  }
  std::size_t nginx_bytes = 0;
  if (nginx != nullptr) {
    nginx_bytes =
        check(nginx->port(), build_request("POST", "/v1/embeddings", Environment::kUpstreamKey, embeddings),
              "nginx POST /v1/embeddings")
            .size();
  }

  const auto run = [&](const char* label, std::uint16_t port, pid_t pid, const std::string& request) {
    hooks.progress(std::string("(f) ") + label + ": C=" + std::to_string(s.concurrency) + ", " +
                   strf("%g s warm-up + %g s", s.warmup_s, s.duration_s));
    Pass p{label, run_pass(port, request, s.concurrency, s.warmup_s, s.duration_s, s.request_timeout_ms, pid,
                           env.upstream_pid(), hooks.interrupted)};
    hooks.progress(strf("  %llu ok, %llu errors, %.0f rps, CPU %.1f us/request",
                        static_cast<unsigned long long>(p.result.load.requests),
                        static_cast<unsigned long long>(p.errors()), p.result.load.rps, p.cpu()));
    for (const auto& [reason, n] : p.result.load.error_reasons)
      hooks.progress("    " + std::to_string(n) + " x " + reason);
    hooks.after_pass();
    return p;
  };
  const auto interrupted = [&] { return hooks.interrupted != nullptr && hooks.interrupted->load(); };

  // Pass 1: the same conversation through modelgw, chat and Messages.
  const Pass on_chat = run("chat completions", env.gateway_port(), env.gateway_pid(), chat);
  if (interrupted()) return out;
  const Pass on_messages =
      run("messages (anthropic, native)", env.gateway_port(), env.gateway_pid(), messages);
  if (interrupted()) return out;
  // Pass 2: the same embeddings request relayed by nginx and served by modelgw.
  Pass on_nginx{"embeddings through nginx", {}};
  if (nginx != nullptr) {
    on_nginx = run(on_nginx.label, nginx->port(), nginx->pid(),
                   build_request("POST", "/v1/embeddings", Environment::kUpstreamKey, embeddings));
    if (interrupted()) return out;
  }
  const Pass on_modelgw = run("embeddings through modelgw", env.gateway_port(), env.gateway_pid(),
                              build_request("POST", "/v1/embeddings", env.gateway_key(), embeddings));

  const double messages_ratio = over(on_messages.cpu(), on_chat.cpu());
  const double embeddings_ratio = nginx != nullptr ? over(on_modelgw.cpu(), on_nginx.cpu()) : -1.0;
  summary << "(f) messages_embeddings: proxy CPU per request at C=" << s.concurrency << "\n";
  summary << strf("  %-34s %10s %10s %10s %8s\n", "pass", "us/request", "mock us/rq", "rps", "errors");
  std::uint64_t errors = 0;
  const Pass* const passes[] = {&on_chat, &on_messages, &on_nginx, &on_modelgw};
  for (const Pass* p : passes) {
    if (p == &on_nginx && nginx == nullptr) {
      summary << strf("  %-34s %10s\n", p->label, "n/a");
      continue;
    }
    errors += p->errors();
    summary << strf("  %-34s %10.1f %10.1f %10.0f %8llu\n", p->label, p->cpu(),
                    p->result.upstream_cpu_us_per_request, p->result.load.rps,
                    static_cast<unsigned long long>(p->errors()));
  }
  summary << "  messages over chat:         " << verdict(messages_ratio, kMessagesTarget) << "\n";
  summary << "  embeddings modelgw / nginx: "
          << (nginx != nullptr ? verdict(embeddings_ratio, kEmbeddingsTarget) : std::string("n/a (no nginx)"))
          << strf("; answer %zu bytes through modelgw", through_gateway.size())
          << (nginx != nullptr ? strf(", %zu through nginx", nginx_bytes) : std::string()) << "\n";
  summary << "(f) messages_embeddings: errors " << errors << "\n";

  out["messages"] = {{"chat", pass_json(on_chat)},
                     {"messages", pass_json(on_messages)},
                     {"messages_over_chat", messages_ratio},
                     {"target", kMessagesTarget}};
  out["embeddings"] = {{"nginx", nginx != nullptr ? pass_json(on_nginx) : nlohmann::json()},
                       {"modelgw", pass_json(on_modelgw)},
                       {"modelgw_over_nginx", embeddings_ratio},
                       {"target", kEmbeddingsTarget},
                       {"vectors", mock::kEmbeddingVectors},
                       {"dimensions", mock::kEmbeddingDimensions},
                       {"answer_bytes_modelgw", through_gateway.size()},
                       {"answer_bytes_nginx", nginx_bytes}};
  out["errors"] = errors;
  return out;
}

}  // namespace bench
