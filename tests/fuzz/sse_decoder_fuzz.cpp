// The SDK's event-stream decoder (mgw::SseDecoder in modelgw/sdk.hpp), which
// every provider plugin reads its vendor's stream with. Input: split_input.h's
// format. The events decoded from the pieces must be the same as from the
// whole payload and from one byte at a time, and the same as a plain
// line-by-line reading of the event-stream rules below (the reference).
#include "split_input.h"

#include <modelgw/sdk.hpp>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

namespace {

constexpr std::string_view kBom = "\xEF\xBB\xBF";

struct Decoded {
  std::vector<std::string> events;  // "event\x1f" + data (+ "\x1fid" + id for the decoder's runs)
  bool clean_end = false;           // finish(): nothing pending at the end of the body
  bool operator==(const Decoded&) const = default;
};

Decoded decode(const std::vector<std::string_view>& pieces, bool with_id) {
  mgw::SseDecoder decoder;
  Decoded out;
  for (const std::string_view piece : pieces) {
    decoder.feed(piece, [&](const mgw::SseEvent& e) {
      std::string line = e.event + '\x1f' + e.data;
      if (with_id) line.append("\x1fid").append(e.id);
      out.events.push_back(std::move(line));
    });
  }
  if (decoder.overflowed()) std::abort();  // inputs are far below the 16 MiB line bound
  out.clean_end = decoder.finish();
  return out;
}

// The rules, read from the whole body: a leading byte order mark dropped;
// lines end at CRLF, CR or LF; a line starting ':' is a comment; "field:
// value" (one space after the colon dropped), a line without a colon is a
// field with an empty value; "data" lines join with '\n', "event" names the
// event ("message" when none); a blank line dispatches an event that has a
// data line and starts the next; an unterminated last line is pending.
Decoded reference(std::string_view body) {
  if (body.substr(0, kBom.size()) == kBom) body.remove_prefix(kBom.size());
  Decoded out;
  std::string event;
  std::string data;
  bool has_data = false;
  std::size_t i = 0;
  while (true) {
    const std::size_t eol = body.find_first_of("\r\n", i);
    if (eol == std::string_view::npos) break;
    const std::string_view line = body.substr(i, eol - i);
    i = eol + 1;
    if (body[eol] == '\r' && i < body.size() && body[i] == '\n') ++i;
    if (line.empty()) {
      if (has_data) out.events.push_back((event.empty() ? std::string("message") : event) + '\x1f' + data);
      event.clear();
      data.clear();
      has_data = false;
      continue;
    }
    if (line.front() == ':') continue;
    const std::size_t colon = line.find(':');
    const std::string_view field = line.substr(0, colon);
    std::string_view value = colon == std::string_view::npos ? std::string_view() : line.substr(colon + 1);
    if (!value.empty() && value.front() == ' ') value.remove_prefix(1);
    if (field == "data") {
      if (has_data) data.push_back('\n');
      data.append(value);
      has_data = true;
    } else if (field == "event") {
      event.assign(value);
    }
  }
  out.clean_end = i == body.size() && !has_data;
  return out;
}

void compare(const Decoded& want, const Decoded& got, const char* how) {
  if (want == got) return;
  std::fprintf(stderr, "expected (%zu events, clean end %d):\n", want.events.size(), want.clean_end);
  for (const auto& e : want.events) std::fprintf(stderr, "  %s\n", e.c_str());
  std::fprintf(stderr, "decoded %s (%zu events, clean end %d):\n", how, got.events.size(), got.clean_end);
  for (const auto& e : got.events) std::fprintf(stderr, "  %s\n", e.c_str());
  std::fprintf(stderr, "FUZZ FINDING (SseDecoder): %s differs\n", how);
  std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const fuzz::SplitInput in =
      fuzz::read_split_input(std::string_view(reinterpret_cast<const char*>(data), size));
  std::vector<std::string_view> whole;
  if (!in.payload.empty()) whole.push_back(in.payload);
  const Decoded one = decode(whole, /*with_id=*/true);
  compare(one, decode(in.pieces, true), "at the input's offsets");
  compare(one, decode(fuzz::byte_pieces(in.payload), true), "one byte at a time");

  Decoded rules = reference(in.payload);
  Decoded plain = decode(whole, /*with_id=*/false);
  // A body that is only the start of a byte order mark leaves nothing the
  // decoder calls pending (it waits for the mark's next byte), while the
  // rules see an unterminated line; either way no event was dispatched.
  if (!in.payload.empty() && in.payload.size() < kBom.size() &&
      kBom.substr(0, in.payload.size()) == in.payload)
    rules.clean_end = plain.clean_end;
  compare(rules, plain, "by the decoder, against the rules");
  return 0;
}
