#include "auth/jwt/http_keyset_source.h"

#include "auth/jwt/cache_control.h"

#include <Poco/Exception.h>
#include <Poco/Net/HTTPClientSession.h>
#include <Poco/Net/HTTPRequest.h>
#include <Poco/Net/HTTPResponse.h>
#include <Poco/Net/HTTPSClientSession.h>
#include <Poco/URI.h>

#include <istream>
#include <memory>
#include <stdexcept>

namespace modelgw::auth::jwt {
namespace {

Poco::Timespan timespan(std::chrono::milliseconds ms) {
  return Poco::Timespan(static_cast<Poco::Timespan::TimeDiff>(ms.count()) * 1000);
}

}  // namespace

HttpKeysetSource::HttpKeysetSource(HttpFetchOptions options) : options_(std::move(options)) {
  Poco::URI uri;
  try {
    uri = Poco::URI(options_.url);
  } catch (const Poco::Exception& e) {
    throw std::invalid_argument("not a valid URL: " + e.message());
  }
  if (uri.getScheme() != "http" && uri.getScheme() != "https") {
    throw std::invalid_argument("must start with http:// or https://");
  }
  if (uri.getHost().empty()) throw std::invalid_argument("has no host");
  https_ = uri.getScheme() == "https";
  host_ = uri.getHost();
  port_ = uri.getPort();
  path_and_query_ = uri.getPathAndQuery();
  if (path_and_query_.empty()) path_and_query_ = "/";
  if (https_) {
    try {
      // Verify the provider's chain against the system store (plus the
      // operator's CA file) and its name against the host, as for upstreams.
      tls_ = new Poco::Net::Context(Poco::Net::Context::TLS_CLIENT_USE, "", "", options_.ca_file,
                                    Poco::Net::Context::VERIFY_RELAXED, 9, /*loadDefaultCAs=*/true);
    } catch (const Poco::Exception& e) {
      throw std::runtime_error("cannot load '" + options_.ca_file + "': " + e.displayText());
    }
  }
}

std::variant<FetchedDocument, FetchFailure> HttpKeysetSource::fetch() {
  try {
    return fetch_once();
  } catch (const Poco::TimeoutException&) {
    return FetchFailure{"no answer within " + std::to_string(options_.timeout.count()) + " ms"};
  } catch (const Poco::Exception& e) {
    return FetchFailure{e.displayText()};
  } catch (const std::exception& e) {
    return FetchFailure{e.what()};
  }
}

std::variant<FetchedDocument, FetchFailure> HttpKeysetSource::fetch_once() {
  // Reads are bounded one by one by the timeout; this bounds a server that
  // dribbles a byte just often enough to keep each read alive.
  const auto deadline = std::chrono::steady_clock::now() + 2 * options_.timeout;
  std::unique_ptr<Poco::Net::HTTPClientSession> session;
  if (https_) {
    session = std::make_unique<Poco::Net::HTTPSClientSession>(host_, port_, tls_);
  } else {
    session = std::make_unique<Poco::Net::HTTPClientSession>(host_, port_);
  }
  if (options_.proxy) upstream::use_proxy(*session, *options_.proxy);
  session->setKeepAlive(false);
  session->setTimeout(timespan(options_.timeout), timespan(options_.timeout), timespan(options_.timeout));

  Poco::Net::HTTPRequest request(Poco::Net::HTTPRequest::HTTP_GET, path_and_query_,
                                 Poco::Net::HTTPMessage::HTTP_1_1);
  request.set("Accept", "application/json, application/jwk-set+json");
  request.set("User-Agent", "modelgw");
  session->sendRequest(request);
  Poco::Net::HTTPResponse response;
  std::istream& in = session->receiveResponse(response);
  if (response.getStatus() != Poco::Net::HTTPResponse::HTTP_OK) {
    return FetchFailure{"HTTP " + std::to_string(static_cast<int>(response.getStatus()))};
  }
  if (response.hasContentLength() &&
      response.getContentLength64() > static_cast<std::int64_t>(options_.max_body_bytes)) {
    return FetchFailure{"the response is larger than " + std::to_string(options_.max_body_bytes) + " bytes"};
  }
  FetchedDocument doc;
  char buffer[8192];
  // peek() waits (up to the timeout) for the next piece; readsome() takes what
  // has arrived without waiting for a full buffer, so the deadline is checked
  // after every piece.
  while (in.peek() != std::char_traits<char>::eof()) {
    const std::streamsize n = in.readsome(buffer, sizeof buffer);
    doc.body.append(buffer, static_cast<std::size_t>(n));
    if (doc.body.size() > options_.max_body_bytes) {
      return FetchFailure{"the response is larger than " + std::to_string(options_.max_body_bytes) +
                          " bytes"};
    }
    if (std::chrono::steady_clock::now() > deadline) {
      return FetchFailure{"the response took longer than " + std::to_string(2 * options_.timeout.count()) +
                          " ms"};
    }
  }
  if (in.bad()) return FetchFailure{"the response broke off"};
  if (response.hasContentLength() &&
      static_cast<std::int64_t>(doc.body.size()) != response.getContentLength64()) {
    return FetchFailure{"the response broke off before its Content-Length"};
  }
  if (response.has("Cache-Control")) doc.max_age = cache_lifetime(response.get("Cache-Control"));
  return doc;
}

}  // namespace modelgw::auth::jwt
