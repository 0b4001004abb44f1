// A vendor's fixture folder (the layout is in README.md):
//   config.json            the provider block on_provider_new gets (or --config)
//   conformance.json       optional runner settings
//   requests/*.json        {"request": {...}, "expect": {...}}
//   responses/*.json       {"status", "headers", "body", "expect": {"usage", "body"}}
//   streams/NAME.sse       raw vendor stream bytes, with
//   streams/NAME.expected.jsonl   one emitted event per line, and optionally
//   streams/NAME.call.json        call context overrides
//   errors/*.json          {"status", "headers", "body", "expect": {...}}
// Files are read in the check that uses them, so a malformed one fails that
// check, with its name, and no other.
#pragma once

#include "json_compare.h"
#include "provider_session.h"

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace mgw::testkit {

struct Settings {
  std::string provider_config;  // JSON text
  CallSpec call;                // the call context every case starts from
  // Top-level config keys whose type the plugin does not check strictly
  // (the wrong-type config cases skip them).
  std::vector<std::string> loose_config_keys;
};

// Reads config.json / conformance.json (or `config_override`, inline JSON or
// a file path). Throws std::runtime_error naming the file on a bad one.
Settings load_settings(const std::filesystem::path& dir, const std::optional<std::string>& config_override);

// The files of `dir`/`sub` whose names end with `suffix`, sorted.
std::vector<std::filesystem::path> fixture_files(const std::filesystem::path& dir, const std::string& sub,
                                                 const std::string& suffix);

std::string read_file(const std::filesystem::path& path);

// A call context: `base` with the members of `overrides` (an object) applied.
CallSpec call_with(const CallSpec& base, const Json& overrides);

// A request case.
struct RequestCase {
  std::filesystem::path file;
  bool has_expect = false;  // the file has an "expect" member
  std::string name;
  std::string body;  // the client's JSON body, as text
  Json expect;       // object; may be empty
  CallSpec call;
};
RequestCase load_request_case(const std::filesystem::path& file, const CallSpec& base_call);

// A whole response: an error case or a success case.
struct ResponseCase {
  std::filesystem::path file;
  bool has_expect = false;
  std::string name;
  int status = 0;
  Headers headers;
  std::string body;
  Json expect;
  CallSpec call;
};
ResponseCase load_response_case(const std::filesystem::path& file, const CallSpec& base_call);

struct StreamFixture {
  std::string name;
  std::filesystem::path bytes_file;
  std::filesystem::path expected_file;  // NAME.expected.jsonl
  std::string bytes;
  std::optional<std::vector<Json>> expected;  // nullopt when the file is missing
  CallSpec call;
};
StreamFixture load_stream_fixture(const std::filesystem::path& sse_file, const CallSpec& base_call);

// Adds "expect": `expect` to the case file `file` (for --write-expected),
// keeping the rest of it as written.
void write_expect(const std::filesystem::path& file, const Json& expect);

}  // namespace mgw::testkit
