// What the gateway may write to an upstream's request line and header fields
// (http/field_rules.h): the checks that keep a value from smuggling a line.
#include "http/field_rules.h"

#include <gtest/gtest.h>

#include <string>

namespace {

using modelgw::http::is_field_value;
using modelgw::http::is_request_target_text;
using modelgw::http::is_token;

// RFC 9110 5.5, one byte at a time: visible characters, obs-text, SP, HTAB.
bool field_byte(unsigned char c) {
  return c == '\t' || (c >= 0x20 && c != 0x7f);
}

TEST(FieldRules, AFieldValueIsJudgedByEveryByteWhereverItStands) {
  // Every byte value at each position of a 40-byte value: the sixteen-byte
  // runs, their edges and the tail.
  for (int b = 0; b < 256; ++b) {
    for (std::size_t at = 0; at < 40; ++at) {
      std::string value = "Bearer sk-" + std::string(30, 'x');
      value[at] = static_cast<char>(b);
      EXPECT_EQ(is_field_value(value), field_byte(static_cast<unsigned char>(b)))
          << "byte " << b << " at " << at;
    }
  }
  EXPECT_TRUE(is_field_value(""));
  EXPECT_TRUE(is_field_value("caf\xc3\xa9 \t and text past sixteen bytes"));
  EXPECT_FALSE(is_field_value("a value that is long enough\r\nX-Smuggled: 1"));
}

TEST(FieldRules, TokensAndTargetsRefuseWhatWouldEndALine) {
  EXPECT_TRUE(is_token("POST"));
  EXPECT_TRUE(is_token("x-api-key"));
  EXPECT_FALSE(is_token(""));
  EXPECT_FALSE(is_token("Bad Name"));
  EXPECT_FALSE(is_token("a:b"));
  EXPECT_TRUE(is_request_target_text("/v1/chat/completions?a=b"));
  EXPECT_FALSE(is_request_target_text("/v1/a b"));
  EXPECT_FALSE(is_request_target_text("/v1/\r\nX: 1"));
  EXPECT_FALSE(is_request_target_text("/caf\xc3\xa9"));
}

}  // namespace
