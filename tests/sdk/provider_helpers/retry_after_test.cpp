// modelgw/provider/retry_after.hpp: delay-seconds, the three HTTP-date forms
// of RFC 9110 §5.6.7 in any case, and the Retry-After header.
#include <modelgw/provider/retry_after.hpp>

#include <gtest/gtest.h>

#include <initializer_list>
#include <string>
#include <utility>
#include <vector>

namespace {

using namespace mgw::provider;

constexpr int64_t kSunday = 784111777;  // 1994-11-06T08:49:37Z, RFC 9110's example

TEST(HttpDate, ReadsTheThreeFormsOfRfc9110) {
  EXPECT_EQ(parse_http_date("Sun, 06 Nov 1994 08:49:37 GMT"), kSunday);   // IMF-fixdate
  EXPECT_EQ(parse_http_date("Sunday, 06-Nov-94 08:49:37 GMT"), kSunday);  // RFC 850
  EXPECT_EQ(parse_http_date("Sun Nov  6 08:49:37 1994"), kSunday);        // asctime
}

TEST(HttpDate, ReadsNamesInAnyCase) {
  EXPECT_EQ(parse_http_date("sun, 06 nov 1994 08:49:37 gmt"), kSunday);
  EXPECT_EQ(parse_http_date("SUNDAY, 06-NOV-94 08:49:37 GMT"), kSunday);
  EXPECT_EQ(parse_http_date("sun nOV  6 08:49:37 1994"), kSunday);
  for (const char* month :
       {"jan", "FEB", "mAr", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"}) {
    EXPECT_TRUE(parse_http_date(std::string("Mon, 01 ") + month + " 2024 00:00:00 GMT").has_value()) << month;
  }
}

TEST(HttpDate, PicksTheCenturyOfATwoDigitYear) {
  EXPECT_EQ(parse_http_date("Thursday, 01-Jan-70 00:00:00 GMT"), 0);
  EXPECT_EQ(parse_http_date("Saturday, 01-Jan-00 00:00:00 GMT"), 946684800);  // 2000, not 1900
  EXPECT_EQ(parse_http_date("Friday, 31-Dec-69 23:59:59 GMT"), 3155759999);   // 2069
}

TEST(HttpDate, CountsLeapYearsAndTheLeapSecond) {
  EXPECT_EQ(parse_http_date("Thu, 29 Feb 2024 12:00:00 GMT"), 1709208000);
  EXPECT_EQ(parse_http_date("Sat, 31 Dec 2016 23:59:60 GMT"), 1483228800);
}

TEST(HttpDate, RefusesWhatIsNotAnHttpDate) {
  for (const char* bad :
       {"", "GMT", "Sun, 06 Nov 1994 08:49:37", "Sun, 06 Nov 1994 08:49:37 UTC",
        "Sun, 06 Nov 94 08:49:37 GMT", "Sun, 06 Foo 1994 08:49:37 GMT", "Sun, 32 Nov 1994 08:49:37 GMT",
        "Sun, 00 Nov 1994 08:49:37 GMT", "Sun, 06 Nov 1994 24:00:00 GMT", "Sun, 06 Nov 1994 08:60:00 GMT",
        "Sun, 06 Nov 1994 8:49:37 GMT", "Sun, 06-Nov-1994 08:49:37 GMT", "Sun Nov  6 08:49:37 94",
        "Sun, 06 Nov 1994 08:49:37 GMT trailing", "2024-01-01T00:00:00Z", "1700000000"}) {
    EXPECT_FALSE(parse_http_date(bad).has_value()) << bad;
  }
}

TEST(Delay, ReadsSecondsAndFractionsRoundingUp) {
  EXPECT_EQ(parse_delay("30", 1000), 30000);
  EXPECT_EQ(parse_delay("0", 1000), 0);
  EXPECT_EQ(parse_delay("1.5", 1000), 1500);
  EXPECT_EQ(parse_delay("0.0001", 1000), 1);  // waiting too little fails again
  EXPECT_EQ(parse_delay("250", 1), 250);
  EXPECT_FALSE(parse_delay("", 1000).has_value());
  EXPECT_FALSE(parse_delay("-1", 1000).has_value());
  EXPECT_FALSE(parse_delay("1e3", 1000).has_value());
  EXPECT_FALSE(parse_delay(" 1", 1000).has_value());
  EXPECT_FALSE(parse_delay("5", 0).has_value());
}

TEST(Delay, SaturatesInsteadOfOverflowing) {
  EXPECT_EQ(parse_delay("99999999999999999999999999999999", 1000), kMaxDelayMs);
  EXPECT_EQ(parse_delay("99999999999999999999999999999999.999999999999", 1000), kMaxDelayMs);
}

// Headers as a host passes them; the views point into `pairs`.
class RetryHeaders {
 public:
  RetryHeaders(std::initializer_list<std::pair<std::string, std::string>> pairs) : pairs_(pairs) {
    for (const auto& [name, value] : pairs_) {
      list_.push_back(mgw_header{mgw::str(name), mgw::str(value)});
    }
  }
  const mgw_header* data() const { return list_.data(); }
  std::size_t size() const { return list_.size(); }

 private:
  std::vector<std::pair<std::string, std::string>> pairs_;
  std::vector<mgw_header> list_;
};

TEST(RetryAfter, ReadsSecondsOrADateRelativeToNow) {
  const int64_t now = kSunday * 1000;
  const RetryHeaders seconds{{"Retry-After", "20"}};
  EXPECT_EQ(retry_after_ms(seconds.data(), seconds.size(), now), 20000);
  const RetryHeaders date{{"retry-after", "Sun, 06 Nov 1994 08:50:07 GMT"}};
  EXPECT_EQ(retry_after_ms(date.data(), date.size(), now), 30000);
  EXPECT_EQ(retry_after_ms(date.data(), date.size(), now + 60'000), 0);  // a date in the past means now
  const RetryHeaders lower{{"retry-after", "sun, 06 nov 1994 08:50:07 gmt"}};
  EXPECT_EQ(retry_after_ms(lower.data(), lower.size(), now), 30000);
  const RetryHeaders garbled{{"Retry-After", "soon"}};
  EXPECT_EQ(retry_after_ms(garbled.data(), garbled.size(), now), -1);
  EXPECT_EQ(retry_after_ms(nullptr, 0, now), -1);
}

TEST(RetryAfter, ReadsAMillisecondHeaderByName) {
  const RetryHeaders h{{"retry-after-ms", "1500"}, {"Retry-After", "2"}};
  EXPECT_EQ(delay_header_ms(h.data(), h.size(), "retry-after-ms"), 1500);
  EXPECT_EQ(delay_header_ms(h.data(), h.size(), "x-absent"), -1);
  const RetryHeaders bad{{"retry-after-ms", "later"}};
  EXPECT_EQ(delay_header_ms(bad.data(), bad.size(), "retry-after-ms"), -1);
}

}  // namespace
