// Generated vendor stream transcripts: what each provider's upstream sends
// for one long streamed answer, in that vendor's own SSE shape.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace modelgw::bench {

// One vendor's streamed answer of about `bytes` bytes: text deltas of 1 to 6
// words (some with non-ASCII letters and JSON escapes), then the vendor's
// closing events. Deterministic: the same size gives the same bytes.
std::string openai_transcript(std::size_t bytes);
std::string anthropic_transcript(std::size_t bytes);
std::string gemini_transcript(std::size_t bytes);

// `text` cut into the pieces a socket read would return: sizes drawn from
// 1..2920 bytes (up to two TCP segments), most of them holding a few events,
// some cutting an event in two. Deterministic for a given seed. The views
// point into `text`.
std::vector<std::string_view> socket_reads(std::string_view text, unsigned seed);

}  // namespace modelgw::bench
