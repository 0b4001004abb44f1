// Faults below HTTP's usual shape, for the gateway's edge tests: an upstream
// that never gets past interim 100 responses, one whose response has both
// Content-Length and Transfer-Encoding, and streams that go on past any sane
// size (an endless relay, a line that never ends). They write on the raw
// socket where POCO would refuse to produce the bytes.
#pragma once

#include <ostream>
#include <string>
#include <string_view>

namespace Poco::Net {
class HTTPServerRequest;
class HTTPServerResponse;
}  // namespace Poco::Net

namespace fake_upstream {

// interim_forever: "HTTP/1.1 100 Continue" every 100 ms and never a final
// response, until the client closes the connection (or 60 s, or a stop).
void sendInterimForever(Poco::Net::HTTPServerRequest& request, Poco::Net::HTTPServerResponse& response);

// Connections inside sendInterimForever now, and since start: a test checks
// that the gateway let go of its upstream connection.
struct InterimCounts {
  int open = 0;
  int total = 0;
};
InterimCounts interimCounts();

// both_lengths: 200 with `body`, framed chunked but also carrying a
// Content-Length of the body's size (RFC 9112 6.3: a smuggling signature the
// receiver must refuse); the connection is closed after it.
void sendBothLengths(Poco::Net::HTTPServerRequest& request, Poco::Net::HTTPServerResponse& response,
                     std::string_view body);

// long_line=N in a stream: one "data: {...}" line whose payload is N bytes,
// written in 16 KiB pieces 10 ms apart (so a receiver that buffers the whole
// line is seen waiting for it). False once the client has gone away.
bool writeLongLine(std::ostream& out, int bytes);

// The 1000-byte text every flood_bytes=N delta carries.
const std::string& floodText();

}  // namespace fake_upstream
