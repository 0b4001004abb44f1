// The head of an upstream response, with its status code kept as the number
// the vendor sent. POCO stores the status in an enum whose values end at 511,
// so a vendor status such as Anthropic's 529 (overloaded) would be an invalid
// enum value (undefined behaviour); this class parses the status line itself.
#pragma once

#include <Poco/Net/HTTPResponse.h>

#include <istream>

namespace modelgw::upstream {

class UpstreamResponse : public Poco::Net::HTTPResponse {
 public:
  // Reads "HTTP/1.x NNN reason" and the header fields. Throws
  // Poco::Net::NoMessageException at the end of the stream and
  // Poco::Net::MessageException for a malformed head.
  void read(std::istream& in) override;

  int status_code() const { return status_code_; }

 private:
  int status_code_ = 0;
};

}  // namespace modelgw::upstream
