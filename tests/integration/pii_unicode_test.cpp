// PII written with Unicode look-alikes, end to end against the real binary:
// a model reads a card in full-width or Arabic-Indic digits, or with
// zero-width or no-break spaces between its groups, as the card, so the
// gateway must too. In `block` mode each such request is refused and never
// reaches the fake upstream; in `mask` mode the upstream receives the
// placeholder and none of the value's original bytes.
#include "harness/checks.h"
#include "harness/stack.h"

#include <map>
#include <string>
#include <vector>

namespace it {
namespace {

using namespace std::chrono_literals;

struct Disguised {
  const char* what;
  const char* category;
  std::string value;
};

// The finding's examples (issue 24, point 8), each a value a model reads as
// the plain one: 4111 1111 1111 1111, jane.roe@example.org, 123-45-6789.
const std::vector<Disguised>& disguised_values() {
  static const std::vector<Disguised> values = {
      {"full-width digits", "payment_card",
       "\xEF\xBC\x94\xEF\xBC\x91\xEF\xBC\x91\xEF\xBC\x91 \xEF\xBC\x91\xEF\xBC\x91\xEF\xBC\x91\xEF\xBC\x91 "
       "\xEF\xBC\x91\xEF\xBC\x91\xEF\xBC\x91\xEF\xBC\x91 \xEF\xBC\x91\xEF\xBC\x91\xEF\xBC\x91\xEF\xBC\x91"},
      {"zero-width spaces between groups", "payment_card",
       "4111\xE2\x80\x8B"
       "1111\xE2\x80\x8B"
       "1111\xE2\x80\x8B"
       "1111"},
      {"no-break spaces between groups", "payment_card",
       "4111\xC2\xA0"
       "1111\xC2\xA0"
       "1111\xC2\xA0"
       "1111"},
      {"dots between groups", "payment_card", "4111.1111.1111.1111"},
      {"double spaces between groups", "payment_card", "4111  1111  1111  1111"},
      {"Arabic-Indic digits", "payment_card",
       "\xD9\xA4\xD9\xA1\xD9\xA1\xD9\xA1 \xD9\xA1\xD9\xA1\xD9\xA1\xD9\xA1 \xD9\xA1\xD9\xA1\xD9\xA1\xD9\xA1 "
       "\xD9\xA1\xD9\xA1\xD9\xA1\xD9\xA1"},
      {"full-width @", "email",
       "jane.roe\xEF\xBC\xA0"
       "example.org"},
      {"soft hyphens", "email",
       "jane.ro\xC2\xAD"
       "e@exam\xC2\xAD"
       "ple.org"},
      {"en dashes", "ssn",
       "123\xE2\x80\x93"
       "45\xE2\x80\x93"
       "6789"},
  };
  return values;
}

class PiiUnicodeTest : public ::testing::Test {
 public:
  static void SetUpTestSuite() {
    try {
      GatewayOptions o;
      o.pii_yaml = "pii:\n  default_mode: flag\n";
      stack_ = start_stack(o);
      const auto& gw = *stack_->gateway;
      admin_key_ = gw.create_key("acme", "admin").key;
      for (const char* tenant : {"uni-blocker", "uni-masker"}) {
        gw.create_tenant(tenant);
        tenant_keys_[tenant] = gw.create_key(tenant).key;
      }
      set_policy("uni-blocker", {{"mode", "block"}, {"critical", {"payment_card", "ssn", "email"}}});
      set_policy("uni-masker", {{"mode", "mask"}});
    } catch (const std::exception& e) {
      setup_error_ = e.what();
    }
  }
  static void TearDownTestSuite() { stack_.reset(); }

 protected:
  void SetUp() override { ASSERT_NE(stack_, nullptr) << "suite setup failed: " << setup_error_; }

  static void set_policy(const std::string& tenant, const json& pii) {
    HttpRequest r;
    r.method = "PATCH";
    r.path = "/internal/v1/tenants/" + tenant + "/settings";
    r.body = json{{"pii", pii}}.dump();
    r.headers.emplace_back("Authorization", "Bearer " + admin_key_);
    auto resp = http_call(stack_->port(), r);
    if (resp.status != 200) throw std::runtime_error("setting the PII policy failed: " + resp.body);
  }
  static HttpResponse chat(const std::string& tenant, const std::string& text) {
    json body = {{"model", "gpt-4o-mini"},
                 {"messages", json::array({{{"role", "user"}, {"content", text}}})}};
    return post_chat(stack_->port(), tenant_keys_.at(tenant), body.dump());
  }
  static void expect_not_in_log(const std::string& value) {
    EXPECT_EQ(stack_->gateway->log().find(value), std::string::npos) << "the log holds a planted value";
  }

  static inline std::unique_ptr<Stack> stack_;
  static inline std::string setup_error_;
  static inline std::string admin_key_;
  static inline std::map<std::string, std::string> tenant_keys_;
};

TEST_F(PiiUnicodeTest, BlockRefusesEachDisguisedValueAndNeverSendsIt) {
  int n = 0;
  for (const Disguised& d : disguised_values()) {
    SCOPED_TRACE(d.what);
    const std::string marker = "uni-block-" + std::to_string(++n);
    auto r = chat("uni-blocker", marker + ": here it is " + d.value + " thanks");
    EXPECT_TRUE(IsApiError(r, 422, "invalid_request_error", "pii_detected", "messages[0].content"));
    EXPECT_NE(r.body.find(d.category), std::string::npos) << r.body;
    EXPECT_EQ(r.body.find(d.value), std::string::npos) << "the error must not echo the value";
    EXPECT_TRUE(stack_->fake->find_request(marker).is_null()) << "a blocked request reached the vendor";
    expect_not_in_log(d.value);
  }
}

TEST_F(PiiUnicodeTest, MaskReplacesTheOriginalBytesOfEachDisguisedValue) {
  const std::map<std::string, std::string> placeholder = {
      {"payment_card", "[PAYMENT_CARD_1]"}, {"email", "[EMAIL_1]"}, {"ssn", "[SSN_1]"}};
  int n = 0;
  for (const Disguised& d : disguised_values()) {
    SCOPED_TRACE(d.what);
    const std::string marker = "uni-mask-" + std::to_string(++n);
    auto r = chat("uni-masker", marker + ": here it is " + d.value + " thanks");
    ASSERT_EQ(r.status, 200) << r.body;
    const json sent = stack_->fake->find_request(marker);
    ASSERT_FALSE(sent.is_null());
    // Exactly the value's bytes are gone, zero-width characters inside it too;
    // the text around it is byte for byte what the client sent.
    EXPECT_EQ(sent["body"]["messages"][0]["content"],
              marker + ": here it is " + placeholder.at(d.category) + " thanks");
    EXPECT_EQ(sent["body"].dump().find(d.value), std::string::npos);
    expect_not_in_log(d.value);
  }
}

// The value sits after non-ASCII text and its own disguise: the offsets the
// mode plugin receives are the original text's, so what precedes the value is
// not cut and no UTF-8 sequence is split.
TEST_F(PiiUnicodeTest, MaskKeepsTheTextAroundADisguisedValueIntact) {
  const std::string text =
      "uni-mask-context: Grüße aus Köln\xE2\x80\x8B, Karte "
      "\xEF\xBC\x94\xEF\xBC\x91\xEF\xBC\x91\xEF\xBC\x91\xE2\x80\x8B\xEF\xBC\x91\xEF\xBC\x91\xEF\xBC\x91\xEF"
      "\xBC\x91"
      "\xE2\x80\x8B\xEF\xBC\x91\xEF\xBC\x91\xEF\xBC\x91\xEF\xBC\x91\xE2\x80\x8B\xEF\xBC\x91\xEF\xBC\x91\xEF"
      "\xBC"
      "\x91\xEF\xBC\x91 und SSN 123\xE2\x80\x93"
      "45\xE2\x80\x93"
      "6789 – danke ☺";
  auto r = chat("uni-masker", text);
  ASSERT_EQ(r.status, 200) << r.body;
  const json sent = stack_->fake->find_request("uni-mask-context");
  ASSERT_FALSE(sent.is_null());
  EXPECT_EQ(sent["body"]["messages"][0]["content"],
            "uni-mask-context: Grüße aus Köln\xE2\x80\x8B, Karte [PAYMENT_CARD_1] und SSN [SSN_1] – danke ☺");
}

}  // namespace
}  // namespace it
