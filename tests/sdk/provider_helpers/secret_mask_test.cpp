// modelgw/provider/secret_mask.hpp: one prefix table, one bearer alphabet,
// and the cut to a UTF-8 boundary.
#include <modelgw/provider/secret_mask.hpp>

#include <gtest/gtest.h>

#include <string>

namespace {

using namespace mgw::provider;

TEST(SecretMask, EveryKnownPrefixKeepsThePrefixAndLosesTheRest) {
  EXPECT_EQ(mask_secrets("key sk-ant-api03-AbC12_x rejected", {}), "key sk-ant-*** rejected");
  EXPECT_EQ(mask_secrets("key sk-proj-AbC12 rejected", {}), "key sk-*** rejected");
  EXPECT_EQ(mask_secrets("key sk_live_AbC12 rejected", {}), "key sk_*** rejected");
  EXPECT_EQ(mask_secrets("key gsk_AbC12 rejected", {}), "key gsk_*** rejected");
  EXPECT_EQ(mask_secrets("key xai-AbC12 rejected", {}), "key xai-*** rejected");
  EXPECT_EQ(mask_secrets("key hf_AbC12 rejected", {}), "key hf_*** rejected");
  EXPECT_EQ(mask_secrets("key AIzaSyAbC12 rejected", {}), "key AIza*** rejected");
  EXPECT_EQ(mask_secrets("token ya29.a0AfB_byC8.kZr2 expired.", {}), "token ya29.*** expired.");
}

TEST(SecretMask, APrefixAloneIsAWordNotAKey) {
  EXPECT_EQ(mask_secrets("use sk- or hf_ prefixes", {}), "use sk- or hf_ prefixes");
}

TEST(SecretMask, HalfMaskedEchoesLoseTheirTail) {
  EXPECT_EQ(mask_secrets("Incorrect API key provided: sk-proj-****abcd. You can", {}),
            "Incorrect API key provided: sk-***. You can");
}

TEST(SecretMask, TheBearerTokenIsAnyRfc6750Token) {
  // A JWT (dots) and standard base64 ('+', '/', '='): all of it goes.
  EXPECT_EQ(mask_secrets("Authorization: Bearer eyJhbGci.eyJzdWIi.c2lnbmF0dXJl failed", {}),
            "Authorization: Bearer *** failed");
  EXPECT_EQ(mask_secrets("auth=Bearer ab+c/d== next", {}), "auth=Bearer *** next");
  EXPECT_EQ(mask_secrets("bearer   ~tok.", {}), "bearer   ***.");  // any case, any spaces; the stop stays
  EXPECT_EQ(mask_secrets("Bearer: not a token", {}), "Bearer: not a token");
}

TEST(SecretMask, LongGeneratedRunsGoWordsAndIdsStay) {
  const std::string generated = "a1b2c3d4e5f6g7h8i9j0k1l2m3n4o5p6q7r8s9t0";  // 40
  EXPECT_EQ(mask_secrets("token " + generated + " expired", {}), "token *** expired");
  EXPECT_EQ(mask_secrets("id msg_01PPTB1VfAYm5zB6hT3hLW8y ok", {}), "id msg_01PPTB1VfAYm5zB6hT3hLW8y ok");
  EXPECT_EQ(mask_secrets(std::string(60, 'a'), {}), std::string(60, 'a'));  // letters only
  // Dots split runs: a long dotted field path is not a credential.
  const std::string path = "messages.12.content.3.tool_result.content.0.text";
  EXPECT_EQ(mask_secrets(path + ": Field required", {}), path + ": Field required");
}

TEST(SecretMask, TheConfiguredKeyGoesWhereverItIs) {
  EXPECT_EQ(mask_secrets("echo:MyCustomKey99:end", "MyCustomKey99"), "echo:***:end");
  EXPECT_EQ(mask_secrets("a short key abc", "abc"), "a short key abc");  // under 8 bytes: words stay
}

TEST(SecretMask, ControlCharactersBecomeSpaces) {
  EXPECT_EQ(mask_secrets("line\r\nbreak\x7f", {}), "line  break ");
}

TEST(VendorText, TrimsMasksAndCutsOnACharacterBoundary) {
  EXPECT_EQ(vendor_text("  model overloaded\n", {}), "model overloaded");
  EXPECT_EQ(vendor_text(" \r\n ", {}), "");
  const std::string text = std::string(299, 'x') + "\xC3\xA9";  // é straddles byte 300
  EXPECT_EQ(vendor_text(text, {}), std::string(299, 'x'));
  EXPECT_EQ(vendor_text(std::string(1000, 'y'), {}, 10), std::string(10, 'y'));
  // A generated credential straddling the limit is still recognised whole:
  // cut first, its first 19 characters would read as a word and stay.
  const std::string credential = "a1b2c3d4e5f6g7h8i9j0k1l2m3n4o5p6q7r8s9t0";
  EXPECT_EQ(vendor_text(std::string(280, '.') + " " + credential, {}), std::string(280, '.') + " ***");
}

TEST(Utf8Prefix, NeverSplitsASequence) {
  EXPECT_EQ(utf8_prefix("\xE2\x82\xAC\xE2\x82\xAC", 4), "\xE2\x82\xAC");
  EXPECT_EQ(utf8_prefix("abc", 10), "abc");
  EXPECT_EQ(utf8_prefix("\xF0\x9F\x98\x80", 2), "");
}

}  // namespace
