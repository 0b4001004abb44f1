// The Responses API served natively: a vendor's own answer passed on under
// the gateway's id (responses/native_answer.h), and the native request and a
// kept turn written as input items (responses/native_request.h). Input: one
// event's data object per line; a line "FAIL" fails the stream there; the
// whole input is also tried as a whole response object, and, when it parses
// as a JSON object, as a request body and a kept turn.
//
// Checks: nothing throws; every event written is `event: <type>` and
// `data: <json>` whose type is the event's (no byte of it can start another
// SSE line), numbered 0, 1, 2... with the request_id; a whole answer is a
// response object under the gateway's id with the request_id; the native
// request never holds previous_response_id and always store: false.
#include "errors/api_error.h"
#include "responses/native_answer.h"
#include "responses/native_request.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

namespace {

using nlohmann::json;

[[noreturn]] void finding(const std::string& what) {
  std::fprintf(stderr, "FUZZ FINDING (responses native): %s\n", what.c_str());
  std::abort();
}

constexpr std::string_view kRequestId = "req_fuzzfuzzfuzzfuzzfuzzfuzz";
constexpr std::string_view kResponseId = "resp_fuzzfuzzfuzzfuzzfuzzfuzz";
const json kEcho = {{"store", true}, {"previous_response_id", "resp_earlier"}};

void read_events(std::string_view out, std::int64_t& sequence) {
  while (!out.empty()) {
    const auto end = out.find("\n\n");
    if (end == std::string_view::npos) finding("an event that does not end with a blank line");
    const std::string_view event = out.substr(0, end);
    out.remove_prefix(end + 2);
    const auto newline = event.find('\n');
    if (newline == std::string_view::npos || event.substr(0, 7) != "event: " ||
        event.substr(newline + 1, 6) != "data: " || event.find('\n', newline + 1) != std::string_view::npos ||
        event.find('\r') != std::string_view::npos)
      finding("an event that is not one event: line and one data: line");
    const std::string type(event.substr(7, newline - 7));
    const json data = json::parse(event.substr(newline + 7), nullptr, false);
    if (!data.is_object()) finding("event data that is not a JSON object");
    if (data.value("type", "") != type) finding("event data whose type is not the event's");
    if (data.value("sequence_number", std::int64_t{-1}) != sequence++)
      finding("a sequence number out of order");
    if (data.value("request_id", "") != kRequestId) finding("an event without the request_id");
    if (const auto r = data.find("response"); r != data.end() && r->is_object() && (*r)["id"] != kResponseId)
      finding("a response object under the vendor's id");
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  modelgw::responses::NativeAnswer whole(kEcho, std::string(kRequestId));
  if (const auto body = whole.whole(input)) {
    const json r = json::parse(*body, nullptr, false);
    if (!r.is_object() || r.value("object", "") != "response" || r.value("id", "") != kResponseId ||
        r.value("request_id", "") != kRequestId || r["store"] != true)
      finding("a whole answer that is not the gateway's response object");
    if (!json::parse(whole.final_response(), nullptr, false).is_object())
      finding("a kept response that is not JSON");
  }

  modelgw::responses::NativeAnswer stream(kEcho, std::string(kRequestId));
  std::int64_t sequence = 0;
  std::string out;
  std::string_view rest = input;
  while (!rest.empty()) {
    const auto newline = rest.find('\n');
    const std::string_view line = rest.substr(0, newline);
    rest = newline == std::string_view::npos ? std::string_view() : rest.substr(newline + 1);
    out.clear();
    if (line == "FAIL") {
      stream.fail(modelgw::errors::ApiError{502, "provider_failed", "cut", {}}, out);
      read_events(out, sequence);
      break;
    }
    (void)stream.event(line, out);
    read_events(out, sequence);
  }

  json doc = json::parse(input, nullptr, false);
  if (doc.is_object()) {
    json items = json::array();
    modelgw::responses::append_turn_items(items, doc.value("input", json()), doc);
    const json native = modelgw::responses::native_request(doc, items);
    if (native.contains("previous_response_id") || native["store"] != false)
      finding("a native request that tells the vendor of state it does not keep");
  }
  return 0;
}
