// Small POCO request/response helpers shared by all routes.
#pragma once

#include <iosfwd>
#include <string>
#include <string_view>

namespace Poco::Net {
class HTTPServerRequest;
class HTTPServerResponse;
class StreamSocket;
}  // namespace Poco::Net

namespace fake_upstream {

// Reads the whole request body. A request with neither Content-Length nor
// chunked encoding has no body (RFC 9112), so it does not wait for EOF.
std::string readBody(Poco::Net::HTTPServerRequest& request);

// Sends a complete body with Content-Length, so the connection stays usable
// for keep-alive.
void sendBody(Poco::Net::HTTPServerResponse& response, int status, const std::string& contentType,
              std::string_view body);

inline void sendJson(Poco::Net::HTTPServerResponse& response, int status, std::string_view body) {
  static const std::string kJson = "application/json";
  sendBody(response, status, kJson, body);
}

// The connection's socket, for faults that must act below HTTP (cutting a
// body short) and for TCP_NODELAY.
Poco::Net::StreamSocket& socketOf(Poco::Net::HTTPServerRequest& request);

// The URI without its query string.
std::string_view pathOf(const std::string& uri);

// The URI's query string, without the '?' ("" when there is none).
std::string_view queryOf(const std::string& uri);

// %XX escapes decoded; '+' stays '+' (it is literal in a path). A malformed
// escape is kept as it is.
std::string percentDecode(std::string_view text);

// Ends the connection mid-body: the client sees a body shorter than promised
// (Content-Length) or a chunked body with no terminating zero-length chunk.
void cutConnection(Poco::Net::HTTPServerRequest& request, Poco::Net::HTTPServerResponse& response,
                   std::ostream& out);

// cut_after=N on a non-streaming answer: a 200 whose Content-Length is that
// of `body` but only its first `bytes` bytes are sent, then the connection
// is cut.
void sendTruncated(Poco::Net::HTTPServerRequest& request, Poco::Net::HTTPServerResponse& response,
                   const std::string& contentType, std::string_view body, int bytes);

// The html fault: a proxy's error page, "<html><head><title>502 Bad
// Gateway</title>..." with `status` and its reason phrase.
void sendHtmlPage(Poco::Net::HTTPServerResponse& response, int status);

}  // namespace fake_upstream
