// The conformance checks. Each runs in a process of its own (isolation.h)
// and reports through findings.h; a check passes when it reported no problem.
#pragma once

#include "fixtures.h"
#include "provider_session.h"

#include <modelgw/plugin.h>

#include <cstddef>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace mgw::testkit {

struct RunContext {
  mgw_plugin_entry_fn entry = nullptr;
  std::filesystem::path fixtures;
  Settings settings;
  // Write a stream's NAME.expected.jsonl from what the plugin emitted when
  // the file is missing (for a person to review), instead of failing.
  bool write_expected = false;
  // Transcripts up to this size are split at every byte; longer ones at
  // evenly spaced positions (the check costs the square of the size).
  std::size_t max_split_bytes = 16384;
};

struct Check {
  std::string name;
  std::string summary;
  std::function<void(const RunContext&)> run;
};

std::vector<Check> handshake_checks();
std::vector<Check> config_checks();
std::vector<Check> request_checks();
std::vector<Check> response_checks();
std::vector<Check> stream_checks(const RunContext& ctx);
std::vector<Check> error_table_checks();
std::vector<Check> concurrency_checks();
// ABI 1.10: the responses_api/ fixtures, for a plugin that declares
// MGW_OPERATION_RESPONSES.
std::vector<Check> responses_checks(const RunContext& ctx);
// ABI 1.11: the messages_api/ fixtures, for a plugin that declares
// MGW_OPERATION_MESSAGES.
std::vector<Check> messages_checks(const RunContext& ctx);
// ABI 1.11: the embeddings/ fixtures, for a plugin that declares MGW_OPERATION_EMBEDDINGS.
std::vector<Check> embeddings_checks(const RunContext& ctx);
// ABI 1.11: the count_tokens/ fixtures, for a plugin that declares MGW_OPERATION_COUNT_TOKENS.
std::vector<Check> count_tokens_checks(const RunContext& ctx);

// Every check, in the order they run.
std::vector<Check> all_checks(const RunContext& ctx);

// A session with `shape` and one provider made from the configured block;
// nullptr (and a problem) when the plugin offers no usable provider.
struct Ready {
  std::unique_ptr<Session> session;
  mgw_provider* provider = nullptr;
};
std::optional<Ready> ready_provider(const RunContext& ctx, const HostShape& shape = HostShape::current());

// The request the hostile request cases start from: the first requests/
// case with no "refused" expectation, else a minimal chat request.
std::string base_request(const RunContext& ctx);

// Fixture drivers, shared by the fixture checks and the version-skew checks.
// A case without "expect" is a problem, unless `write_expected`: then the
// plugin's answer is written into the case file as its expectation.
void run_request_case(Session& s, mgw_provider* p, const RequestCase& c, bool write_expected = false);
void run_response_case(Session& s, mgw_provider* p, const ResponseCase& c, bool error_case,
                       bool write_expected = false);
void run_stream_whole(Session& s, mgw_provider* p, const StreamFixture& f);
// One stream fixture fed whole, byte by byte, split at every byte and in
// random pieces (the stream.NAME checks), with `base_call` as its call.
void run_stream_fixture(const RunContext& ctx, const std::filesystem::path& file, const CallSpec& base_call);

}  // namespace mgw::testkit
