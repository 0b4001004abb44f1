// The gateway's metrics (docs/METRICS.md), rendered for GET /metrics.
//
// Every series a request can touch exists before the request: one set per
// catalog (alias, provider) and GenAI operation name (a fixed list of three),
// made at start-up and on a reload, plus one for calls that ended before a
// model was chosen and one for anything else; status and error code index a
// small fixed table. So the per-request path
// (observe_chat) only finds its slots (a scan of the published routes) and
// adds to relaxed atomics: no allocation, no string formatting, no lock.
// Scrape-time sources (queue depths, in-flight counts, plugin info) are
// read, and all text written, only by render().
#pragma once

#include "metrics/histogram.h"

#include <array>
#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace modelgw::metrics {

// One catalog alias and the provider that serves it.
struct RouteName {
  std::string alias;
  std::string provider;
};

// What one chat call amounted to, as far as metrics go (views into the
// caller's record: nothing is kept).
struct ChatObservation {
  std::string_view alias;  // empty: ended before a model was chosen
  std::string_view provider;
  int status = 0;
  std::string_view error_code;  // empty: none
  std::int64_t latency_us = 0;
  std::int64_t upstream_us = -1;  // time spent in upstream attempts; < 0: none was made
  std::int64_t ttft_us = -1;      // < 0: not streamed, or nothing relayed
  std::int64_t input_tokens = 0;
  std::int64_t output_tokens = 0;
  std::int64_t cached_input_tokens = 0;
  std::int64_t cost_micros = 0;
  int retries = 0;    // tries past the first at the same model
  int fallbacks = 0;  // models tried past the first
  bool streamed = false;
  std::string_view pii_action;    // "blocked", "masked", "flagged" or empty
  std::string_view pii_findings;  // {"email":2}: categories and counts
  std::string_view refusal;       // BUDGET_EXCEEDED, CREDIT_INSUFFICIENT, RATE_LIMITED or empty
  // The usage record's operation ("chat.completions", "responses", ...);
  // counted under its gen_ai_operation_name (registry.cpp).
  std::string_view operation = "chat.completions";
};

// The fixed tables the request counter is indexed by; anything else counts
// as "other".
std::span<const int> known_statuses();
std::span<const std::string_view> known_error_codes();

class Registry {
 public:
  // At most `max_routes` (alias, provider) pairs are ever told apart; those
  // added past that are counted together as alias="other".
  explicit Registry(const std::vector<RouteName>& routes, std::size_t max_routes = 1024);
  ~Registry();
  Registry(const Registry&) = delete;
  Registry& operator=(const Registry&) = delete;

  // The hot path: any thread, never allocates, never blocks.
  void observe_chat(const ChatObservation& o) noexcept;
  void stream_opened() noexcept { open_streams_.fetch_add(1, std::memory_order_relaxed); }
  void stream_closed() noexcept { open_streams_.fetch_sub(1, std::memory_order_relaxed); }

  // Start-up and reload: makes the series of routes not known yet. One
  // caller at a time (a mutex orders writers; readers never wait).
  void add_routes(const std::vector<RouteName>& routes);

  // Start-up only (before the first scrape): values read at scrape time.
  // `type` is "gauge" or "counter"; `read` must be thread-safe and cheap.
  void add_source(std::string name, std::string help, std::string type, std::function<double()> read);
  // The same for a family of samples with one label: `read` returns each
  // label value (a bounded set) with its value.
  using LabelledValues = std::vector<std::pair<std::string, double>>;
  void add_labelled_source(std::string name, std::string help, std::string type, std::string label,
                           std::function<LabelledValues()> read);
  // modelgw_plugin_info{kind,name,version,abi} 1.
  void add_plugin(std::string_view kind, std::string_view name, std::string_view version,
                  std::string_view abi);

  // The whole exposition (text format 0.0.4). Any thread.
  std::string render() const;

 private:
  struct Route;
  struct Source {
    std::string name, help, type;
    std::function<double()> read;
  };
  struct LabelledSource {
    std::string name, help, type, label;
    std::function<LabelledValues()> read;
  };

  Route& route_of(std::string_view alias, std::string_view provider) noexcept;
  void render_routes(std::string& out) const;
  void render_totals(std::string& out) const;

  // [0]: no model chosen; [1]: "other" (past max_routes); then the catalog's.
  // Slots below published_ are complete and never change.
  std::unique_ptr<std::unique_ptr<Route>[]> routes_;
  std::size_t capacity_;
  std::atomic<std::size_t> published_{0};
  std::mutex add_mutex_;
  std::atomic<std::int64_t> open_streams_{0};
  // PII findings by action (blocked, masked, flagged) and category; requests by action.
  std::array<std::array<std::atomic<std::uint64_t>, 8>, 3> pii_findings_{};
  std::array<std::atomic<std::uint64_t>, 3> pii_requests_{};
  std::array<std::atomic<std::uint64_t>, 3> refusals_{};  // by reason
  std::vector<std::string> pii_needles_;                  // `"email":`..., in category order
  std::vector<Source> sources_;
  std::vector<LabelledSource> labelled_sources_;
  std::string plugins_;  // pre-rendered modelgw_plugin_info samples
};

// Counts a stream as open for the guard's lifetime (registry may be null).
class OpenStream {
 public:
  OpenStream(Registry* registry, bool streamed) : registry_(streamed ? registry : nullptr) {
    if (registry_ != nullptr) registry_->stream_opened();
  }
  ~OpenStream() {
    if (registry_ != nullptr) registry_->stream_closed();
  }
  OpenStream(const OpenStream&) = delete;
  OpenStream& operator=(const OpenStream&) = delete;

 private:
  Registry* registry_;
};

}  // namespace modelgw::metrics
