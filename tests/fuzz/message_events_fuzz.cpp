// The writing of a POST /v1/messages answer from what a provider plugin
// emitted: chat.completion.chunk objects to Anthropic's event stream
// (messages/message_events.h), a whole chat completion to a Message
// (messages/message_object.h), and, served natively, the vendor's own events
// and message passed on (messages/native_answer.h). Input: one chunk per
// line; a line "FAIL" fails the stream there; the whole input is also tried
// as a whole chat completion and as a vendor's message.
//
// Checks: nothing throws; every event is one `event: <type>` line and one
// `data: <json>` line whose type is the event's; the translated stream
// begins with message_start, has blocks indexed 0, 1, 2... with one open at
// a time, each delta in its open block, and ends with message_delta then
// message_stop, or with error and nothing after (a stream that failed
// before its first chunk is that error alone); a whole answer is a
// message with the request_id; a native whole answer carries the request_id.
#include "errors/api_error.h"
#include "messages/message_events.h"
#include "messages/message_object.h"
#include "messages/native_answer.h"

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
  std::fprintf(stderr, "FUZZ FINDING (message events): %s\n", what.c_str());
  std::abort();
}

constexpr std::string_view kRequestId = "req_fuzzfuzzfuzzfuzzfuzzfuzz";

struct Event {
  std::string type;
  json data;
};

// Checks the framing of `out` and appends its events.
void read_events(std::string_view out, std::vector<Event>& events) {
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
    json data = json::parse(event.substr(newline + 7), nullptr, false);
    if (!data.is_object()) finding("event data that is not a JSON object");
    if (data.value("type", "") != type) finding("event data whose type is not the event's");
    events.push_back(Event{type, std::move(data)});
  }
}

void check_translated(const std::vector<Event>& events, bool failed) {
  // A stream that failed before its first chunk is its error alone.
  if (failed && events.size() == 1 && events.front().type == "error") return;
  if (events.empty() || events.front().type != "message_start")
    finding("a stream that does not begin with message_start");
  std::int64_t open = -1;
  std::int64_t next = 0;
  for (std::size_t i = 1; i < events.size(); ++i) {
    const Event& e = events[i];
    if (e.type == "content_block_start") {
      if (open >= 0) finding("a block started while another is open");
      if (e.data.value("index", std::int64_t{-1}) != next) finding("a block out of order");
      open = next++;
    } else if (e.type == "content_block_delta") {
      if (open < 0 || e.data.value("index", std::int64_t{-1}) != open) finding("a delta outside its block");
    } else if (e.type == "content_block_stop") {
      if (open < 0 || e.data.value("index", std::int64_t{-1}) != open) finding("a stop of a block not open");
      open = -1;
    } else if (e.type == "message_delta") {
      if (open >= 0) finding("message_delta with a block open");
      if (i + 2 != events.size() || events[i + 1].type != "message_stop")
        finding("message_delta not followed by message_stop alone");
      if (!e.data.contains("usage") || !e.data["usage"].is_object()) finding("message_delta without usage");
    } else if (e.type == "message_stop") {
      if (failed) finding("message_stop after a failure");
    } else if (e.type == "error") {
      if (!failed || i + 1 != events.size()) finding("an error event that is not the last");
    } else {
      finding("an unexpected event " + e.type);
    }
  }
  const std::string& last = events.back().type;
  if (last != (failed ? "error" : "message_stop")) finding("a stream that ends with " + last);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  if (const auto whole = modelgw::messages::whole_message(input, "alias", kRequestId)) {
    const json m = json::parse(*whole, nullptr, false);
    if (!m.is_object() || m.value("type", "") != "message" || !m["content"].is_array() ||
        m.value("request_id", "") != kRequestId)
      finding("a whole answer that is not a message");
  }
  modelgw::messages::NativeMessageAnswer native{std::string(kRequestId)};
  if (const auto whole = native.whole(input)) {
    const json m = json::parse(*whole, nullptr, false);
    if (!m.is_object() || m.value("request_id", "") != kRequestId)
      finding("a native whole answer without the request_id");
  }

  modelgw::messages::MessageEventWriter writer("alias", std::string(kRequestId));
  std::vector<Event> events;
  std::vector<Event> native_events;
  std::string out;
  bool failed = false;
  std::string_view rest = input;
  const modelgw::errors::ApiError cut{502, "provider_failed", "cut", {}};
  while (!rest.empty() && !failed) {
    const auto newline = rest.find('\n');
    const std::string_view line = rest.substr(0, newline);
    rest = newline == std::string_view::npos ? std::string_view() : rest.substr(newline + 1);
    out.clear();
    if (line == "FAIL") {
      writer.fail(cut, out);
      failed = true;
    } else {
      (void)writer.chunk(line, out);
    }
    read_events(out, events);
    out.clear();
    if (failed) {
      native.fail(cut, out);
    } else {
      (void)native.event(line, out);
    }
    read_events(out, native_events);
  }
  out.clear();
  writer.finish(modelgw::messages::MessageUsage{3, 4, 1, 0}, out);
  read_events(out, events);
  check_translated(events, failed);
  return 0;
}
