#include "upstream/upstream_url.h"

#include <Poco/Exception.h>
#include <Poco/URI.h>

#include <stdexcept>

namespace modelgw::upstream {

UpstreamUrl parse_upstream_url(const std::string& url) {
  Poco::URI uri;
  try {
    uri = Poco::URI(url);
  } catch (const Poco::Exception& e) {
    throw std::invalid_argument("'" + url + "' is not a valid URL: " + e.message());
  }
  UpstreamUrl out;
  if (uri.getScheme() == "https") {
    out.https = true;
  } else if (uri.getScheme() != "http") {
    throw std::invalid_argument("'" + url + "' must use http or https");
  }
  if (uri.getHost().empty()) throw std::invalid_argument("'" + url + "' has no host");
  if (!uri.getQuery().empty() || !uri.getFragment().empty()) {
    throw std::invalid_argument("'" + url + "' must not carry a query or fragment");
  }
  out.host = uri.getHost();
  out.port = uri.getPort();
  out.base_path = uri.getPath();
  while (!out.base_path.empty() && out.base_path.back() == '/') out.base_path.pop_back();
  return out;
}

}  // namespace modelgw::upstream
