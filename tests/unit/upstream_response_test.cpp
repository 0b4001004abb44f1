#include "upstream/upstream_response.h"

#include <Poco/Net/NetException.h>
#include <gtest/gtest.h>

#include <sstream>

namespace {

using modelgw::upstream::UpstreamResponse;

UpstreamResponse read(const std::string& head) {
  std::istringstream in(head);
  UpstreamResponse r;
  r.read(in);
  return r;
}

TEST(UpstreamResponse, KeepsAStatusBeyondPocosEnumAsSent) {
  // Anthropic answers 529 when overloaded; POCO's enum cannot hold it.
  const auto r = read("HTTP/1.1 529 Overloaded\r\nContent-Type: application/json\r\nretry-after: 3\r\n\r\n");
  EXPECT_EQ(r.status_code(), 529);
  EXPECT_EQ(r.getReason(), "Overloaded");
  EXPECT_EQ(r.get("retry-after"), "3");
  EXPECT_EQ(r.getContentType(), "application/json");
}

TEST(UpstreamResponse, ReadsOrdinaryStatusesAndAMissingReason) {
  EXPECT_EQ(read("HTTP/1.1 200 OK\r\n\r\n").status_code(), 200);
  const auto r = read("HTTP/1.0 429\r\n\r\n");
  EXPECT_EQ(r.status_code(), 429);
  EXPECT_EQ(r.getVersion(), "HTTP/1.0");
  EXPECT_EQ(r.getStatus(), Poco::Net::HTTPResponse::HTTP_TOO_MANY_REQUESTS);
}

TEST(UpstreamResponse, RefusesAMalformedHead) {
  EXPECT_THROW(read(""), Poco::Net::NoMessageException);
  EXPECT_THROW(read("SMTP/1.1 200 OK\r\n\r\n"), Poco::Net::MessageException);
  EXPECT_THROW(read("HTTP/1.1 2x0 OK\r\n\r\n"), Poco::Net::MessageException);
  EXPECT_THROW(read("HTTP/1.1 2000 OK\r\n\r\n"), Poco::Net::MessageException);
  EXPECT_THROW(read("HTTP/1.1 200 OK"), Poco::Net::MessageException) << "no end of line";
  EXPECT_THROW(read("HTTP/1.1 200 " + std::string(2000, 'x') + "\r\n\r\n"), Poco::Net::MessageException);
}

}  // namespace
