#include "http/body_reader.h"

#include <istream>

namespace modelgw::http {
namespace {
ApiError too_large(std::size_t max_bytes) {
  return ApiError{
      413,
      "request_too_large",
      "the request body is larger than this gateway accepts (" + std::to_string(max_bytes) + " bytes)",
      {}};
}
}  // namespace

std::variant<std::string, ApiError> read_body(Poco::Net::HTTPServerRequest& request, std::size_t max_bytes) {
  std::string body;
  if (request.hasContentLength()) {
    const auto declared = request.getContentLength64();
    if (declared < 0) return bad_request("invalid_request", "invalid Content-Length");
    if (static_cast<std::uint64_t>(declared) > max_bytes) return too_large(max_bytes);
    body.reserve(static_cast<std::size_t>(declared));
  }
  std::istream& in = request.stream();
  char buffer[16384];
  while (in) {
    in.read(buffer, sizeof buffer);
    const auto n = static_cast<std::size_t>(in.gcount());
    if (n == 0) break;
    if (body.size() + n > max_bytes) return too_large(max_bytes);
    body.append(buffer, n);
  }
  return body;
}

bool drain_body(Poco::Net::HTTPServerRequest& request, std::size_t max_bytes,
                std::chrono::milliseconds max_time) {
  const auto deadline = std::chrono::steady_clock::now() + max_time;
  std::istream& in = request.stream();
  char buffer[16384];
  std::size_t drained = 0;
  while (in && drained < max_bytes && std::chrono::steady_clock::now() < deadline) {
    in.read(buffer, sizeof buffer);
    const auto n = static_cast<std::size_t>(in.gcount());
    if (n == 0) return true;
    drained += n;
  }
  return in.eof();
}

}  // namespace modelgw::http
