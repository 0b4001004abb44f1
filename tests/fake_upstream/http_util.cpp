#include "http_util.h"

#include <Poco/Net/HTTPServerRequest.h>
#include <Poco/Net/HTTPServerRequestImpl.h>
#include <Poco/Net/HTTPServerResponse.h>

#include <istream>

namespace fake_upstream {
namespace {
// Bodies larger than this are read in pieces rather than preallocated from a
// client-supplied Content-Length.
constexpr int64_t kMaxPreallocBytes = 16 << 20;
}  // namespace

std::string readBody(Poco::Net::HTTPServerRequest& request) {
  std::string body;
  if (!request.getChunkedTransferEncoding() && !request.hasContentLength()) return body;
  std::istream& in = request.stream();
  const auto length = request.getContentLength64();
  if (length > 0 && length <= kMaxPreallocBytes) {
    body.resize(static_cast<size_t>(length));
    in.read(body.data(), static_cast<std::streamsize>(length));
    body.resize(static_cast<size_t>(in.gcount()));
    if (static_cast<int64_t>(body.size()) == length) return body;
  }
  char buffer[8192];
  while (in.read(buffer, sizeof buffer), in.gcount() > 0) {
    body.append(buffer, static_cast<size_t>(in.gcount()));
  }
  return body;
}

void sendBody(Poco::Net::HTTPServerResponse& response, int status, const std::string& contentType,
              std::string_view body) {
  response.setStatusAndReason(static_cast<Poco::Net::HTTPResponse::HTTPStatus>(status));
  response.setContentType(contentType);
  response.sendBuffer(body.data(), body.size());
}

Poco::Net::StreamSocket& socketOf(Poco::Net::HTTPServerRequest& request) {
  // Poco's HTTPServer always hands handlers an HTTPServerRequestImpl.
  return static_cast<Poco::Net::HTTPServerRequestImpl&>(request).socket();
}

std::string_view pathOf(const std::string& uri) {
  std::string_view view(uri);
  return view.substr(0, view.find('?'));
}

}  // namespace fake_upstream
