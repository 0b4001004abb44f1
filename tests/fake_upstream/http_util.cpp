#include "http_util.h"

#include <Poco/Net/HTTPServerRequest.h>
#include <Poco/Net/HTTPServerRequestImpl.h>
#include <Poco/Net/HTTPServerResponse.h>
#include <Poco/Net/StreamSocket.h>

#include <algorithm>
#include <istream>
#include <ostream>

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

std::string_view queryOf(const std::string& uri) {
  std::string_view view(uri);
  const auto q = view.find('?');
  return q == std::string_view::npos ? std::string_view() : view.substr(q + 1);
}

std::string percentDecode(std::string_view text) {
  auto hex = [](char c) -> int {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
  };
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '%' && i + 2 < text.size() && hex(text[i + 1]) >= 0 && hex(text[i + 2]) >= 0) {
      out.push_back(static_cast<char>(hex(text[i + 1]) * 16 + hex(text[i + 2])));
      i += 2;
    } else {
      out.push_back(text[i]);
    }
  }
  return out;
}

void cutConnection(Poco::Net::HTTPServerRequest& request, Poco::Net::HTTPServerResponse& response,
                   std::ostream& out) {
  out.flush();
  try {
    socketOf(request).shutdown();
  } catch (...) {
    // Already gone: the client sees the truncation either way.
  }
  // Makes Poco drop the connection instead of waiting for the next request.
  response.setKeepAlive(false);
}

void sendTruncated(Poco::Net::HTTPServerRequest& request, Poco::Net::HTTPServerResponse& response,
                   const std::string& contentType, std::string_view body, int bytes) {
  response.setContentType(contentType);
  response.setContentLength64(static_cast<int64_t>(body.size()));
  std::ostream& stream = response.send();
  stream.write(body.data(), std::min<std::streamsize>(bytes, static_cast<std::streamsize>(body.size())));
  cutConnection(request, response, stream);
}

void sendHtmlPage(Poco::Net::HTTPServerResponse& response, int status) {
  static const std::string kHtml = "text/html";
  const auto reason =
      Poco::Net::HTTPResponse::getReasonForStatus(static_cast<Poco::Net::HTTPResponse::HTTPStatus>(status));
  const auto title = std::to_string(status) + " " + reason;
  sendBody(response, status, kHtml,
           "<html><head><title>" + title + "</title></head><body><center><h1>" + title +
               "</h1></center></body></html>");
}

}  // namespace fake_upstream
