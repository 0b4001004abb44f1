// How the gateway reads an upstream answer it streams: the strict response
// parser (upstream/response_parser.h) fed the socket's bytes in the pieces
// they arrived in, the way UpstreamCall does (interim responses skipped, one
// body piece per step, the end of the connection as put_eof), and each body
// piece checked by the event-stream bounds (chat/sse_bounds.h) before a plugin
// would see it. Input: split_input.h's format; the payload is the raw HTTP/1.1
// response, head and body.
//
// Checks: the status, headers, body and outcome do not depend on where the
// bytes were cut (one piece, the input's offsets, one byte at a time); a
// parser that accepted the end of the connection is done (or UpstreamCall
// would wait for more until its deadline); and the bounds stop the stream in
// the piece holding the first byte past a bound, as a byte-by-byte count of
// the body says.
#include "split_input.h"

#include "chat/sse_bounds.h"
#include "upstream/response_parser.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace {

using modelgw::chat::SseBounds;
using modelgw::upstream::ResponseParser;
namespace http = boost::beast::http;

constexpr std::size_t kMaxLine = 64;
constexpr std::size_t kMaxEvent = 256;

[[noreturn]] void finding(const std::string& what) {
  std::fprintf(stderr, "FUZZ FINDING (upstream body): %s\n", what.c_str());
  std::abort();
}

struct Reading {
  int status = 0;
  ResponseParser::Headers headers;
  std::string body;
  std::string outcome = "incomplete";  // "done", "error", "incomplete"
  bool operator==(const Reading&) const = default;
};

// UpstreamCall's parse_head() and parse() over a buffer that grows by whole
// pieces; each body piece goes to `on_piece`.
class Reader {
 public:
  template <typename OnPiece>
  void feed(std::string_view bytes, OnPiece&& on_piece) {
    if (over_) return;
    pending_.append(bytes);
    pump(on_piece);
  }

  template <typename OnPiece>
  void end(OnPiece&& on_piece) {
    if (over_) return;
    if (!head_done_) return fail();  // the connection closed inside the head
    ResponseParser::ErrorCode ec;
    parser_->put_eof(ec);
    if (ec) return fail();
    pump(on_piece);
    if (!over_) finding("the parser accepted the end of the connection but is not done");
  }

  const Reading& reading() const { return reading_; }

 private:
  void fail() {
    reading_.outcome = "error";
    over_ = true;
  }

  template <typename OnPiece>
  void pump(OnPiece&& on_piece) {
    int stalls = 0;
    // Bounded: every round consumes bytes, ends, or counts a stall.
    while (!over_) {
      if (head_done_ && parser_->is_done()) {
        reading_.outcome = "done";
        over_ = true;
        return;
      }
      if (pending_.empty()) return;
      ResponseParser::ErrorCode ec;
      const std::size_t n = parser_->feed(pending_, ec);
      const std::string piece(parser_->piece());  // a view into pending_
      pending_.erase(0, n);
      if (ec == http::error::need_more) return;
      if (ec) return fail();
      if (!head_done_) {
        if (!parser_->is_header_done()) {
          if (n == 0) return;
          continue;
        }
        if (parser_->interim()) {
          parser_ = std::make_unique<ResponseParser>(false);
          continue;
        }
        head_done_ = true;
        reading_.status = parser_->status();
        reading_.headers = parser_->headers();
      }
      if (!piece.empty()) {
        stalls = 0;
        reading_.body.append(piece);
        on_piece(std::string_view(piece));
        continue;
      }
      if (n == 0 && ++stalls > 4) return fail();
    }
  }

  std::unique_ptr<ResponseParser> parser_ = std::make_unique<ResponseParser>(false);
  std::string pending_;
  bool head_done_ = false;
  bool over_ = false;
  Reading reading_;
};

// The offset in `body` of the first byte past a bound, counted byte by byte
// the way sse_bounds.h describes them.
std::optional<std::size_t> first_byte_past_bounds(std::string_view body) {
  std::size_t line = 0;
  std::size_t event = 0;
  char last = 0;
  for (std::size_t i = 0; i < body.size(); ++i) {
    const char c = body[i];
    if (c != '\n') {
      ++line;
      ++event;
      last = c;
      if (line > kMaxLine || event > kMaxEvent) return i;
      continue;
    }
    const bool blank = line == 0 || (line == 1 && last == '\r');
    event = blank ? 0 : event + 1;
    line = 0;
  }
  return std::nullopt;
}

Reading read(const std::vector<std::string_view>& pieces) {
  Reader reader;
  SseBounds bounds(kMaxLine, kMaxEvent);
  std::size_t offset = 0;                                         // of the next body piece
  std::optional<std::pair<std::size_t, std::size_t>> stopped_in;  // [begin, end) of the refused piece
  auto on_piece = [&](std::string_view piece) {
    if (!stopped_in && !bounds.feed(piece)) stopped_in.emplace(offset, offset + piece.size());
    offset += piece.size();
  };
  for (const std::string_view piece : pieces) reader.feed(piece, on_piece);
  reader.end(on_piece);

  const Reading& r = reader.reading();
  const std::optional<std::size_t> past = first_byte_past_bounds(r.body);
  if (past && !stopped_in)
    finding("the bounds let through a body past them at byte " + std::to_string(*past));
  if (!past && stopped_in) finding("the bounds refused a body within them");
  if (past && (*past < stopped_in->first || *past >= stopped_in->second)) {
    finding("the bounds refused the piece at [" + std::to_string(stopped_in->first) + ", " +
            std::to_string(stopped_in->second) + "), the first byte past them is " + std::to_string(*past));
  }
  return r;
}

void compare(const Reading& want, const Reading& got, const char* how) {
  if (want == got) return;
  std::fprintf(stderr, "one piece: status %d, %zu headers, %zu body bytes, %s\n", want.status,
               want.headers.size(), want.body.size(), want.outcome.c_str());
  std::fprintf(stderr, "%s: status %d, %zu headers, %zu body bytes, %s\n", how, got.status,
               got.headers.size(), got.body.size(), got.outcome.c_str());
  finding(std::string("the reading depends on where the bytes were cut (") + how + ")");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const fuzz::SplitInput in =
      fuzz::read_split_input(std::string_view(reinterpret_cast<const char*>(data), size));
  std::vector<std::string_view> whole;
  if (!in.payload.empty()) whole.push_back(in.payload);
  const Reading one = read(whole);
  compare(one, read(in.pieces), "at the input's offsets");
  compare(one, read(fuzz::byte_pieces(in.payload)), "one byte at a time");
  return 0;
}
