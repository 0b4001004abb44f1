#include "proxy_auth.h"

#include <Poco/Base64Decoder.h>
#include <Poco/Exception.h>

#include <sstream>

namespace fake_proxy {
namespace {

constexpr size_t kMaxCredentialsLength = 4096;

std::optional<std::string> decodeBase64(const std::string& text) {
  if (text.size() > kMaxCredentialsLength) return std::nullopt;
  std::istringstream in(text);
  Poco::Base64Decoder decoder(in);
  std::string out;
  try {
    char c = 0;
    while (decoder.get(c)) out.push_back(c);
  } catch (const Poco::Exception&) {
    return std::nullopt;
  }
  // The stream stops quietly at a bad character; only a clean end counts.
  if (!decoder.eof()) return std::nullopt;
  return out;
}

// "user:pass" from "Basic dXNlcjpwYXNz".
std::optional<std::string> basicCredentials(const Headers& headers) {
  const auto value = headerValue(headers, "proxy-authorization");
  if (!value) return std::nullopt;
  const auto space = value->find(' ');
  if (space == std::string::npos || !iequals(value->substr(0, space), "basic")) return std::nullopt;
  auto token = value->substr(space + 1);
  while (!token.empty() && token.front() == ' ') token.erase(0, 1);
  auto decoded = decodeBase64(token);
  if (!decoded || decoded->find(':') == std::string::npos) return std::nullopt;
  return decoded;
}

}  // namespace

AuthResult checkProxyAuth(const Headers& headers, const std::optional<std::string>& required) {
  AuthResult result;
  const auto credentials = basicCredentials(headers);
  if (credentials) result.user = credentials->substr(0, credentials->find(':'));
  result.accepted = !required || (credentials && *credentials == *required);
  return result;
}

}  // namespace fake_proxy
