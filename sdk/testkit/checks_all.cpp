// The checks in the order they run: the handshake first (a plugin that fails
// it fails most of the rest), then each hook, then the fixtures.
#include "checks.h"

namespace mgw::testkit {

std::vector<Check> all_checks(const RunContext& ctx) {
  std::vector<Check> out;
  for (auto* group : {&handshake_checks, &config_checks, &request_checks, &response_checks}) {
    for (auto& c : (*group)()) out.push_back(std::move(c));
  }
  for (auto& c : stream_checks(ctx)) out.push_back(std::move(c));
  for (auto& c : error_table_checks()) out.push_back(std::move(c));
  for (auto& c : concurrency_checks()) out.push_back(std::move(c));
  for (auto& c : responses_checks(ctx)) out.push_back(std::move(c));
  for (auto& c : messages_checks(ctx)) out.push_back(std::move(c));
  for (auto& c : embeddings_checks(ctx)) out.push_back(std::move(c));
  for (auto& c : count_tokens_checks(ctx)) out.push_back(std::move(c));
  return out;
}

}  // namespace mgw::testkit
