// Small POCO request/response helpers shared by all routes.
#pragma once

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

}  // namespace fake_upstream
