// modelgw/provider/ascii.hpp and http.hpp: case folding, header lookup,
// field syntax, the host clock, path encoding.
#include <modelgw/provider/ascii.hpp>
#include <modelgw/provider/http.hpp>

#include <gtest/gtest.h>

#include <initializer_list>
#include <string>
#include <utility>
#include <vector>

namespace {

using namespace mgw::provider;

// Headers as a host passes them; the views point into `pairs_`.
class Headers {
 public:
  Headers(std::initializer_list<std::pair<std::string, std::string>> pairs) : pairs_(pairs) {
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

TEST(Ascii, ComparesIgnoringCaseOnlyForAsciiLetters) {
  EXPECT_TRUE(iequals("Retry-After", "retry-after"));
  EXPECT_FALSE(iequals("Retry-After", "retry-after "));
  EXPECT_FALSE(iequals("\xC3\x84", "\xC3\xA4"));  // Ä and ä: not ASCII, not folded
  EXPECT_TRUE(istarts_with("Bearer xyz", "bearer"));
  EXPECT_FALSE(istarts_with("Bear", "bearer"));
  EXPECT_TRUE(icontains("The Maximum Context Length is", "maximum context length"));
  EXPECT_FALSE(icontains("short", "longer needle"));
  EXPECT_EQ(trim_ows(" \t value \t"), "value");
  EXPECT_EQ(trim_ows(" \t "), "");
}

TEST(Http, FindsTheFirstHeaderOfANameInAnyCaseTrimmed) {
  const Headers h{{"X-Other", "a"}, {"RETRY-after", "  7\t"}, {"retry-after", "9"}};
  EXPECT_EQ(find_header(h.data(), h.size(), "Retry-After"), "7");
  EXPECT_FALSE(find_header(h.data(), h.size(), "Content-Type").has_value());
  EXPECT_FALSE(find_header(nullptr, 3, "Retry-After").has_value());  // no array, however large the count
}

TEST(Http, TokensAndControlCharacters) {
  EXPECT_TRUE(is_token("X-Custom_Header.1"));
  EXPECT_FALSE(is_token(""));
  EXPECT_FALSE(is_token("Bad Name"));
  EXPECT_FALSE(is_token("Bad:Name"));
  EXPECT_TRUE(has_control("a\r\nb"));
  EXPECT_TRUE(has_control(std::string("a\0b", 3)));
  EXPECT_TRUE(has_control("a\x7f"));
  EXPECT_FALSE(has_control("tab\tis allowed"));
}

TEST(Http, MediaTypeNamesOnlyKnownTypes) {
  const Headers html{{"Content-Type", "Text/HTML; charset=utf-8"}};
  EXPECT_EQ(media_type(html.data(), html.size()), "text/html");
  const Headers odd{{"Content-Type", "text/<script>"}};
  EXPECT_EQ(media_type(odd.data(), odd.size()), "an unrecognised content type");
  EXPECT_EQ(media_type(nullptr, 0), "no content type");
  const Headers lengthy{{"Content-Type", std::string(500, 'a')}};
  EXPECT_EQ(media_type(lengthy.data(), lengthy.size()), "an unrecognised content type");
}

// Found by the *_response fuzz targets: a Content-Type is the vendor's (or a
// proxy's) text, and "text/<key>" is a valid media type that would put a
// credential into the client's error message.
TEST(Http, MediaTypeNeverEchoesAnUnknownTypesText) {
  const Headers key{{"Content-Type", "text/sk-proj-abcdefghijklmnop"}};
  EXPECT_EQ(media_type(key.data(), key.size()).find("sk-"), std::string::npos);
}

TEST(Http, TheClockComesFromTheHostWhenItHasOne) {
  mgw_host_api host{};
  host.struct_size = sizeof host;
  host.callback_now_unix_ms = [](void*) -> int64_t { return 1234; };
  EXPECT_EQ(now_unix_ms(&host), 1234);
  host.callback_now_unix_ms = nullptr;
  EXPECT_GT(now_unix_ms(&host), 1'600'000'000'000);  // the system clock
  EXPECT_GT(now_unix_ms(nullptr), 1'600'000'000'000);
}

TEST(Http, PercentEncodesEverythingButUnreservedBytes) {
  EXPECT_EQ(percent_encode_segment("gemini-2.0-flash_x~1"), "gemini-2.0-flash_x~1");
  EXPECT_EQ(percent_encode_segment("a/b:c?d#e f"), "a%2Fb%3Ac%3Fd%23e%20f");
  EXPECT_EQ(percent_encode_segment("\xC3\xA9"), "%C3%A9");
}

}  // namespace
