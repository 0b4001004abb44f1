// A provider plugin's stream decoder, through its C ABI hooks as the gateway
// drives them (on_stream_new, on_stream_data per piece, on_stream_end,
// on_stream_destroy). Input: split_input.h's format; the payload is the
// vendor's event-stream body. Besides the sink's checks (provider_host.h),
// the answer must not depend on where the body was cut: it is decoded in one
// piece, at the input's offsets and one byte at a time, and the three
// transcripts must be the same.
#include "provider_host.h"
#include "split_input.h"

#include <modelgw/sdk.hpp>

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

namespace {

// What the client gets for the body delivered in `pieces`. Like the gateway,
// stops feeding once the plugin reported an error, and ends the stream only
// when it did not.
std::vector<std::string> decode(const std::vector<std::string_view>& pieces) {
  const mgw_provider_hooks& hooks = fuzz::provider_hooks();
  const mgw_call_context ctx = fuzz::call_context(/*stream=*/true);
  mgw_provider_stream* stream = nullptr;
  fuzz::expect_ok(hooks.on_stream_new(fuzz::provider(), &ctx, &stream), "on_stream_new");
  if (stream == nullptr) fuzz::finding("on_stream_new gave no stream");
  fuzz::Transcript t;
  for (const std::string_view piece : pieces) {
    fuzz::expect_ok(hooks.on_stream_data(stream, mgw::str(piece), t.sink()), "on_stream_data");
    if (t.failed()) break;
  }
  if (!t.failed()) fuzz::expect_ok(hooks.on_stream_end(stream, t.sink()), "on_stream_end");
  hooks.on_stream_destroy(stream);
  if (t.bodies() > 0) fuzz::finding("a stream answered with callback_body");
  return t.lines();
}

void compare(const std::vector<std::string>& whole, const std::vector<std::string>& cut, const char* how) {
  if (whole == cut) return;
  std::fprintf(stderr, "decoded in one piece (%zu events):\n", whole.size());
  for (const auto& line : whole) std::fprintf(stderr, "  %s\n", line.c_str());
  std::fprintf(stderr, "decoded %s (%zu events):\n", how, cut.size());
  for (const auto& line : cut) std::fprintf(stderr, "  %s\n", line.c_str());
  fuzz::finding(std::string("the answer depends on where the stream was cut (") + how + ")");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const fuzz::SplitInput in =
      fuzz::read_split_input(std::string_view(reinterpret_cast<const char*>(data), size));
  std::vector<std::string_view> whole;
  if (!in.payload.empty()) whole.push_back(in.payload);
  const std::vector<std::string> one = decode(whole);
  compare(one, decode(in.pieces), "at the input's offsets");
  compare(one, decode(fuzz::byte_pieces(in.payload)), "one byte at a time");
  return 0;
}
