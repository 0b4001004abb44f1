// The writing of a POST /v1/responses answer from what a provider plugin
// emitted: chat.completion.chunk objects to the typed event stream
// (responses/response_events.h), and a whole chat completion to the response
// object (responses/response_object.h). Input: one chunk per line; a line
// "FAIL" fails the stream there; the whole input is also tried as a whole
// chat completion.
//
// Checks: nothing throws; every event is `event: <type>` and `data: <json>`
// whose type is the event's, with sequence numbers 0, 1, 2... and the
// request_id; the stream ends with exactly one of response.completed,
// response.incomplete, or response.failed followed by error, and nothing
// after; a whole answer is a JSON response object.
#include "errors/api_error.h"
#include "responses/response_events.h"
#include "responses/response_object.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

namespace {

using nlohmann::json;

[[noreturn]] void finding(const std::string& what) {
  std::fprintf(stderr, "FUZZ FINDING (responses events): %s\n", what.c_str());
  std::abort();
}

const json kEcho = {{"instructions", nullptr}, {"metadata", json::object()}, {"tools", json::array()}};
constexpr std::string_view kRequestId = "req_fuzzfuzzfuzzfuzzfuzzfuzz";

// Checks the framing of `out` and appends the event types to `types`.
void read_events(std::string_view out, std::int64_t& sequence, std::vector<std::string>& types) {
  while (!out.empty()) {
    const auto end = out.find("\n\n");
    if (end == std::string_view::npos) finding("an event that does not end with a blank line");
    const std::string_view event = out.substr(0, end);
    out.remove_prefix(end + 2);
    const auto newline = event.find('\n');
    if (newline == std::string_view::npos || event.substr(0, 7) != "event: " ||
        event.substr(newline + 1, 6) != "data: ")
      finding("an event that is not an event: and a data: line");
    const std::string type(event.substr(7, newline - 7));
    const json data = json::parse(event.substr(newline + 7), nullptr, false);
    if (!data.is_object()) finding("event data that is not a JSON object");
    if (data.value("type", "") != type) finding("event data whose type is not the event's");
    if (data.value("sequence_number", std::int64_t{-1}) != sequence++)
      finding("a sequence number out of order");
    if (data.value("request_id", "") != kRequestId) finding("an event without the request_id");
    types.push_back(type);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  if (const auto whole = modelgw::responses::whole_response(input, kEcho, kRequestId)) {
    const json r = json::parse(*whole, nullptr, false);
    if (!r.is_object() || r.value("object", "") != "response" || !r["output"].is_array())
      finding("a whole answer that is not a response object");
  }

  modelgw::responses::ResponseEventWriter writer(kEcho, std::string(kRequestId));
  std::int64_t sequence = 0;
  std::vector<std::string> types;
  std::string out;
  bool failed = false;
  std::string_view rest = input;
  while (!rest.empty() && !failed) {
    const auto newline = rest.find('\n');
    const std::string_view line = rest.substr(0, newline);
    rest = newline == std::string_view::npos ? std::string_view() : rest.substr(newline + 1);
    out.clear();
    if (line == "FAIL") {
      writer.fail(modelgw::errors::ApiError{502, "provider_failed", "cut", {}}, out);
      failed = true;
    } else {
      (void)writer.chunk(line, out);
    }
    read_events(out, sequence, types);
  }
  out.clear();
  writer.finish(modelgw::responses::StreamUsage{3, 4, 1, 0}, out);
  read_events(out, sequence, types);
  if (types.empty()) finding("no events at all");
  if (types.front() != "response.created") finding("a stream that does not begin with response.created");
  const std::string& last = types.back();
  if (failed) {
    if (types.size() < 2 || last != "error" || types[types.size() - 2] != "response.failed")
      finding("a failed stream that does not end with response.failed, error");
  } else if (last != "response.completed" && last != "response.incomplete") {
    finding("a stream that ends with " + last);
  }
  std::size_t terminal = 0;
  for (const auto& t : types)
    terminal += t == "response.completed" || t == "response.incomplete" || t == "response.failed" ? 1 : 0;
  if (terminal != 1) finding("a stream with " + std::to_string(terminal) + " terminal events");
  return 0;
}
