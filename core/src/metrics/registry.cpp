#include "metrics/registry.h"

#include "metrics/exposition.h"
#include "pii/category.h"

#include <algorithm>

namespace modelgw::metrics {
namespace {

constexpr std::array<int, 20> kStatuses = {200, 400, 401, 402, 403, 404, 405, 408, 409, 413,
                                           415, 422, 429, 499, 500, 501, 502, 503, 504, 0};
constexpr std::size_t kOtherStatus = kStatuses.size() - 1;  // written "other"

// The error codes the gateway answers with (README, spec 7); [0] is "no
// error", the last is "other" (a provider plugin's own code, say).
constexpr std::array<std::string_view, 34> kCodes = {
    "none",
    "invalid_json",
    "invalid_parameter",
    "missing_required_field",
    "unsupported_parameter",
    "context_length_exceeded",
    "request_too_large",
    "method_not_allowed",
    "not_found",
    "model_not_found",
    "model_not_available",
    "prompt_not_found",
    "prompt_variable_missing",
    "missing_api_key",
    "invalid_api_key",
    "permission_denied",
    "pii_detected",
    "insufficient_credits",
    "rate_limit_exceeded",
    "idempotency_key_reused",
    "idempotency_request_in_progress",
    "idempotency_response_not_kept",
    "idempotency_unavailable",
    "provider_failed",
    "provider_timeout",
    "provider_busy",
    "storage_unavailable",
    "usage_unrecordable",
    "jwks_unavailable",
    "shutting_down",
    "client_disconnected",
    "not_implemented",
    "internal_error",
    "other",
};

// gen_ai_operation_name, by the OpenTelemetry GenAI semantic conventions'
// well-known names (gen_ai.operation.name): chat completions and Anthropic
// messages are "chat", the Responses API is "generate_content", embeddings
// "embeddings". A fixed list keeps the label's values bounded: an operation
// not known here counts as chat.
constexpr std::array<std::string_view, 3> kGenAiOperations = {"chat", "generate_content", "embeddings"};

std::size_t gen_ai_operation_of(std::string_view operation) {
  if (operation == "responses") return 1;
  if (operation == "embeddings") return 2;
  return 0;  // chat.completions, messages, and anything else
}

constexpr std::array<std::string_view, 3> kPiiActions = {"blocked", "masked", "flagged"};
constexpr std::array<std::string_view, 3> kRefusals = {"BUDGET_EXCEEDED", "CREDIT_INSUFFICIENT",
                                                       "RATE_LIMITED"};

// OpenTelemetry GenAI semantic conventions' advised buckets: operation
// duration in seconds (here microseconds), time to first token likewise, and
// token counts.
constexpr std::array<std::int64_t, 14> kDurationUs = {
    10'000,    20'000,    40'000,    80'000,     160'000,    320'000,    640'000,
    1'280'000, 2'560'000, 5'120'000, 10'240'000, 20'480'000, 40'960'000, 81'920'000};
constexpr std::array<std::int64_t, 16> kTtftUs = {
    1'000,   5'000,   10'000,  20'000,    40'000,    60'000,    80'000,    100'000,
    250'000, 500'000, 750'000, 1'000'000, 2'500'000, 5'000'000, 7'500'000, 10'000'000};
constexpr std::array<std::int64_t, 14> kTokens = {1,     4,     16,     64,      256,     1024,     4096,
                                                  16384, 65536, 262144, 1048576, 4194304, 16777216, 67108864};

const BucketLayout& duration_layout() {
  static const BucketLayout layout(kDurationUs, 1e6);
  return layout;
}
const BucketLayout& ttft_layout() {
  static const BucketLayout layout(kTtftUs, 1e6);
  return layout;
}
const BucketLayout& token_layout() {
  static const BucketLayout layout(kTokens, 1.0);
  return layout;
}

template <typename Array, typename T>
std::size_t index_in(const Array& values, const T& value, std::size_t fallback) {
  for (std::size_t i = 0; i < values.size(); ++i) {
    if (values[i] == value) return i;
  }
  return fallback;
}

void add(std::atomic<std::uint64_t>& counter, std::int64_t n) {
  if (n > 0) counter.fetch_add(static_cast<std::uint64_t>(n), std::memory_order_relaxed);
}

// The count after `needle` (`"email":`) in a findings object; 0 when absent.
std::uint64_t finding_count(std::string_view findings, std::string_view needle) {
  const auto at = findings.find(needle);
  if (at == std::string_view::npos) return 0;
  std::uint64_t n = 0;
  for (std::size_t i = at + needle.size(); i < findings.size() && findings[i] >= '0' && findings[i] <= '9';
       ++i) {
    n = n * 10 + static_cast<std::uint64_t>(findings[i] - '0');
  }
  return n;
}

}  // namespace

std::span<const int> known_statuses() {
  return {kStatuses.data(), kStatuses.size() - 1};
}
std::span<const std::string_view> known_error_codes() {
  return {kCodes.data() + 1, kCodes.size() - 2};
}

// The series of one route that are told apart by gen_ai_operation_name.
struct Operation {
  std::string labels;         // alias="...",provider="...",gen_ai_operation_name="..."
  std::string gen_ai_labels;  // the same in GenAI semantic-convention names
  std::atomic<std::uint64_t> seen{0};
  std::array<std::array<std::atomic<std::uint64_t>, kCodes.size()>, kStatuses.size()> requests{};
  Histogram duration{duration_layout()};
  Histogram ttft{ttft_layout()};
  Histogram input_tokens{token_layout()};
  Histogram output_tokens{token_layout()};
};

struct Registry::Route {
  explicit Route(const RouteName& name)
      : alias(name.alias),
        provider(name.provider),
        labels("alias=\"" + escape_label_value(name.alias) + "\",provider=\"" +
               escape_label_value(name.provider) + "\"") {
    for (std::size_t i = 0; i < kGenAiOperations.size(); ++i) {
      const std::string op(kGenAiOperations[i]);
      operations[i].labels = labels + ",gen_ai_operation_name=\"" + op + "\"";
      operations[i].gen_ai_labels = "gen_ai_operation_name=\"" + op + "\",gen_ai_provider_name=\"" +
                                    escape_label_value(name.provider) + "\",gen_ai_request_model=\"" +
                                    escape_label_value(name.alias) + "\"";
    }
  }

  const std::string alias, provider;
  const std::string labels;  // alias="...",provider="..."
  std::atomic<std::uint64_t> seen{0};
  std::array<Operation, kGenAiOperations.size()> operations;
  Histogram upstream{duration_layout()};
  std::atomic<std::uint64_t> tokens_input{0}, tokens_output{0}, tokens_cached{0};
  std::atomic<std::uint64_t> cost_micros{0};
  std::atomic<std::uint64_t> retries{0}, fallbacks{0}, streamed{0};
};

Registry::Registry(const std::vector<RouteName>& routes, std::size_t max_routes)
    : routes_(new std::unique_ptr<Route>[max_routes + 2]), capacity_(max_routes + 2) {
  routes_[0] = std::make_unique<Route>(RouteName{});
  routes_[1] = std::make_unique<Route>(RouteName{"other", "other"});
  published_.store(2, std::memory_order_release);
  for (pii::Category c : pii::kAllCategories)
    pii_needles_.push_back("\"" + std::string(pii::name(c)) + "\":");
  add_routes(routes);
}

Registry::~Registry() = default;

void Registry::add_routes(const std::vector<RouteName>& routes) {
  std::lock_guard lock(add_mutex_);
  std::size_t n = published_.load(std::memory_order_relaxed);
  for (const auto& r : routes) {
    if (r.alias.empty() || n == capacity_) continue;
    bool known = false;
    for (std::size_t i = 2; i < n && !known; ++i) {
      known = routes_[i]->alias == r.alias && routes_[i]->provider == r.provider;
    }
    if (known) continue;
    routes_[n] = std::make_unique<Route>(r);
    ++n;
    // Release: a reader that sees the count sees the slot whole.
    published_.store(n, std::memory_order_release);
  }
}

Registry::Route& Registry::route_of(std::string_view alias, std::string_view provider) noexcept {
  if (alias.empty()) return *routes_[0];
  const std::size_t n = published_.load(std::memory_order_acquire);
  for (std::size_t i = 2; i < n; ++i) {
    const Route& r = *routes_[i];
    if (r.alias == alias && r.provider == provider) return *routes_[i];
  }
  return *routes_[1];
}

void Registry::observe_chat(const ChatObservation& o) noexcept {
  Route& r = route_of(o.alias, o.provider);
  r.seen.fetch_add(1, std::memory_order_relaxed);
  Operation& op = r.operations[gen_ai_operation_of(o.operation)];
  op.seen.fetch_add(1, std::memory_order_relaxed);
  const std::size_t status = index_in(kStatuses, o.status, kOtherStatus);
  const std::size_t code = o.error_code.empty() ? 0 : index_in(kCodes, o.error_code, kCodes.size() - 1);
  op.requests[status][code].fetch_add(1, std::memory_order_relaxed);
  op.duration.observe(o.latency_us);
  if (o.upstream_us >= 0) r.upstream.observe(o.upstream_us);
  if (o.ttft_us >= 0) op.ttft.observe(o.ttft_us);
  if (o.input_tokens > 0 || o.output_tokens > 0) {
    op.input_tokens.observe(o.input_tokens);
    op.output_tokens.observe(o.output_tokens);
  }
  add(r.tokens_input, o.input_tokens);
  add(r.tokens_output, o.output_tokens);
  add(r.tokens_cached, o.cached_input_tokens);
  add(r.cost_micros, o.cost_micros);
  add(r.retries, o.retries);
  add(r.fallbacks, o.fallbacks);
  if (o.streamed) r.streamed.fetch_add(1, std::memory_order_relaxed);
  if (!o.pii_action.empty()) {
    const std::size_t action = index_in(kPiiActions, o.pii_action, kPiiActions.size());
    if (action < kPiiActions.size()) {
      pii_requests_[action].fetch_add(1, std::memory_order_relaxed);
      for (std::size_t c = 0; c < pii_needles_.size(); ++c) {
        const auto n = finding_count(o.pii_findings, pii_needles_[c]);
        if (n > 0) pii_findings_[action][c].fetch_add(n, std::memory_order_relaxed);
      }
    }
  }
  if (!o.refusal.empty()) {
    const std::size_t reason = index_in(kRefusals, o.refusal, kRefusals.size());
    if (reason < kRefusals.size()) refusals_[reason].fetch_add(1, std::memory_order_relaxed);
  }
}

void Registry::add_source(std::string name, std::string help, std::string type,
                          std::function<double()> read) {
  sources_.push_back(Source{std::move(name), std::move(help), std::move(type), std::move(read)});
}

void Registry::add_labelled_source(std::string name, std::string help, std::string type, std::string label,
                                   std::function<LabelledValues()> read) {
  labelled_sources_.push_back(
      LabelledSource{std::move(name), std::move(help), std::move(type), std::move(label), std::move(read)});
}

void Registry::add_plugin(std::string_view kind, std::string_view name, std::string_view version,
                          std::string_view abi) {
  write_sample(plugins_, "modelgw_plugin_info",
               "kind=\"" + escape_label_value(kind) + "\",name=\"" + escape_label_value(name) +
                   "\",version=\"" + escape_label_value(version) + "\",abi=\"" + escape_label_value(abi) +
                   "\"",
               std::uint64_t{1});
}

void Registry::render_routes(std::string& out) const {
  // Routes no request reached yet are left out: an idle catalog costs a
  // scrape nothing. Families are written whole, one after the other.
  std::vector<const Route*> active;
  const std::size_t n = published_.load(std::memory_order_acquire);
  for (std::size_t i = 0; i < n; ++i) {
    if (routes_[i]->seen.load(std::memory_order_relaxed) > 0) active.push_back(routes_[i].get());
  }

  // The series of each route's operations that requests reached.
  std::vector<const Operation*> operations;
  for (const Route* r : active) {
    for (const Operation& op : r->operations) {
      if (op.seen.load(std::memory_order_relaxed) > 0) operations.push_back(&op);
    }
  }

  write_family(out, "modelgw_requests_total",
               "Requests by alias, provider, GenAI operation, HTTP status and error code.", "counter");
  for (const Operation* op : operations) {
    for (std::size_t s = 0; s < kStatuses.size(); ++s) {
      for (std::size_t c = 0; c < kCodes.size(); ++c) {
        const auto n = op->requests[s][c].load(std::memory_order_relaxed);
        if (n == 0) continue;
        std::string labels = op->labels;
        labels += ",status=\"";
        labels += s == kOtherStatus ? std::string("other") : std::to_string(kStatuses[s]);
        labels += "\",error_code=\"";
        labels += kCodes[c];
        labels += '"';
        write_sample(out, "modelgw_requests_total", labels, n);
      }
    }
  }

  write_family(out, "gen_ai_client_operation_duration_seconds",
               "GenAI operation duration: a chat call from request to last byte, as the gateway saw it.",
               "histogram");
  for (const Operation* op : operations)
    op->duration.write(out, "gen_ai_client_operation_duration_seconds", op->gen_ai_labels);

  write_family(out, "gen_ai_server_time_to_first_token_seconds",
               "Time from the request to the first relayed token of a streamed answer.", "histogram");
  for (const Operation* op : operations) {
    if (op->ttft.count() > 0)
      op->ttft.write(out, "gen_ai_server_time_to_first_token_seconds", op->gen_ai_labels);
  }

  write_family(out, "gen_ai_client_token_usage", "Tokens used per chat call, input (prompt) and output.",
               "histogram");
  for (const Operation* op : operations) {
    if (op->input_tokens.count() == 0) continue;
    op->input_tokens.write(out, "gen_ai_client_token_usage",
                           op->gen_ai_labels + ",gen_ai_token_type=\"input\"");
    op->output_tokens.write(out, "gen_ai_client_token_usage",
                            op->gen_ai_labels + ",gen_ai_token_type=\"output\"");
  }

  write_family(out, "modelgw_upstream_duration_seconds",
               "Time a chat call spent in upstream attempts (all tries and models, retry waits excluded).",
               "histogram");
  for (const Route* r : active) {
    if (r->upstream.count() > 0) r->upstream.write(out, "modelgw_upstream_duration_seconds", r->labels);
  }

  write_family(out, "modelgw_tokens_total",
               "Tokens by alias, provider and type (input, output, cached_input).", "counter");
  for (const Route* r : active) {
    write_sample(out, "modelgw_tokens_total", r->labels + ",type=\"input\"",
                 r->tokens_input.load(std::memory_order_relaxed));
    write_sample(out, "modelgw_tokens_total", r->labels + ",type=\"output\"",
                 r->tokens_output.load(std::memory_order_relaxed));
    write_sample(out, "modelgw_tokens_total", r->labels + ",type=\"cached_input\"",
                 r->tokens_cached.load(std::memory_order_relaxed));
  }

  struct Simple {
    const char* name;
    const char* help;
    std::atomic<std::uint64_t> Route::*value;
  };
  const Simple simple[] = {
      {"modelgw_cost_micros_total", "Cost charged, in micro-units of the catalog's currency.",
       &Route::cost_micros},
      {"modelgw_retries_total",
       "Upstream retries (tries past the first at the same model), by the last alias tried.",
       &Route::retries},
      {"modelgw_fallbacks_total", "Fallbacks to the next model of a route, by the last alias tried.",
       &Route::fallbacks},
      {"modelgw_streamed_requests_total", "Chat requests that asked for a streamed answer.",
       &Route::streamed},
  };
  for (const auto& m : simple) {
    write_family(out, m.name, m.help, "counter");
    for (const Route* r : active)
      write_sample(out, m.name, r->labels, (r->*m.value).load(std::memory_order_relaxed));
  }
}

void Registry::render_totals(std::string& out) const {
  write_family(out, "modelgw_chat_streams_open", "Streamed chat calls in their upstream exchange now.",
               "gauge");
  write_sample(out, "modelgw_chat_streams_open", "", open_streams_.load(std::memory_order_relaxed));

  write_family(out, "modelgw_pii_requests_total", "Chat requests in which PII was found, by action taken.",
               "counter");
  for (std::size_t a = 0; a < kPiiActions.size(); ++a) {
    write_sample(out, "modelgw_pii_requests_total", "action=\"" + std::string(kPiiActions[a]) + "\"",
                 pii_requests_[a].load(std::memory_order_relaxed));
  }
  write_family(out, "modelgw_pii_findings_total", "PII findings (not values) by action taken and category.",
               "counter");
  for (std::size_t a = 0; a < kPiiActions.size(); ++a) {
    for (std::size_t c = 0; c < pii::kAllCategories.size(); ++c) {
      const auto n = pii_findings_[a][c].load(std::memory_order_relaxed);
      if (n == 0) continue;
      write_sample(out, "modelgw_pii_findings_total",
                   "action=\"" + std::string(kPiiActions[a]) + "\",category=\"" +
                       std::string(pii::name(pii::kAllCategories[c])) + "\"",
                   n);
    }
  }
  write_family(out, "modelgw_spend_refusals_total",
               "Chat requests refused by budgets, credits or rate limits, by reason.", "counter");
  for (std::size_t i = 0; i < kRefusals.size(); ++i) {
    write_sample(out, "modelgw_spend_refusals_total", "reason=\"" + std::string(kRefusals[i]) + "\"",
                 refusals_[i].load(std::memory_order_relaxed));
  }
  for (const auto& s : sources_) {
    write_family(out, s.name, s.help, s.type);
    write_sample(out, s.name, "", s.read());
  }
  for (const auto& s : labelled_sources_) {
    write_family(out, s.name, s.help, s.type);
    for (const auto& [value_label, value] : s.read())
      write_sample(out, s.name, s.label + "=\"" + escape_label_value(value_label) + "\"", value);
  }
  if (!plugins_.empty()) {
    write_family(out, "modelgw_plugin_info",
                 "Loaded plugins: kind, name, version and ABI they were built for.", "gauge");
    out += plugins_;
  }
}

std::string Registry::render() const {
  std::string out;
  out.reserve(16 * 1024);
  render_routes(out);
  render_totals(out);
  return out;
}

}  // namespace modelgw::metrics
