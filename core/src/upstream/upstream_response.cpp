#include "upstream/upstream_response.h"

#include <Poco/Net/NetException.h>

#include <cctype>
#include <string>

namespace modelgw::upstream {
namespace {

constexpr std::size_t kMaxStatusLine = 1024;
// The largest value POCO's HTTPStatus enum can hold without undefined
// behaviour: its enumerators end at 511, so its range is 0..511.
constexpr int kMaxPocoStatus = 511;

}  // namespace

void UpstreamResponse::read(std::istream& in) {
  using Traits = std::char_traits<char>;
  int ch = in.get();
  if (ch == Traits::eof()) throw Poco::Net::NoMessageException();
  while (ch != Traits::eof() && std::isspace(ch)) ch = in.get();  // as POCO: tolerate leading blank lines
  if (ch == Traits::eof()) throw Poco::Net::MessageException("No HTTP response header");
  std::string line;
  while (ch != Traits::eof() && ch != '\n' && line.size() < kMaxStatusLine) {
    line += static_cast<char>(ch);
    ch = in.get();
  }
  if (ch != '\n') throw Poco::Net::MessageException("HTTP status line too long or cut short");
  if (!line.empty() && line.back() == '\r') line.pop_back();

  const auto space = line.find(' ');
  if (space == std::string::npos || line.compare(0, 5, "HTTP/") != 0) {
    throw Poco::Net::MessageException("Invalid HTTP version string");
  }
  const std::string version = line.substr(0, space);
  const std::string rest = line.substr(space + 1);
  if (rest.size() < 3 || !std::isdigit(static_cast<unsigned char>(rest[0])) ||
      !std::isdigit(static_cast<unsigned char>(rest[1])) ||
      !std::isdigit(static_cast<unsigned char>(rest[2])) || (rest.size() > 3 && rest[3] != ' ')) {
    throw Poco::Net::MessageException("Invalid HTTP status code");
  }
  status_code_ = (rest[0] - '0') * 100 + (rest[1] - '0') * 10 + (rest[2] - '0');
  const std::string reason = rest.size() > 4 ? rest.substr(4) : std::string();

  Poco::Net::MessageHeader::read(in);  // the header fields, with POCO's limits
  setVersion(version);
  // POCO's own status keeps a value it can hold; status_code() is the truth.
  setStatus(
      static_cast<HTTPStatus>(status_code_ <= kMaxPocoStatus ? status_code_ : HTTP_INTERNAL_SERVER_ERROR));
  setReason(reason);
}

}  // namespace modelgw::upstream
