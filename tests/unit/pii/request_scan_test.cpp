// The PII step of a chat request, through the real mode plugins: which texts
// are scanned and with which paths, what each mode does to the request, the
// allow-list, and the verdict that reaches the usage record. No value may
// appear in anything the step returns.
#include "pii/guard.h"
#include "pii/request_texts.h"
#include "plugins/plugin_error.h"
#include "plugins/plugin_library.h"

#include <gtest/gtest.h>

#include <map>
#include <memory>

namespace modelgw::pii {
namespace {

using nlohmann::json;

std::vector<std::string> paths_of(json doc) {
  std::vector<std::string> paths;
  for_each_request_text(doc, [&](const TextRef& ref) { paths.push_back(ref.path()); });
  return paths;
}

TEST(PiiRequestTexts, VisitsEveryTextSentUpstreamWithItsPath) {
  const json doc = json::parse(R"({
    "model": "m",
    "messages": [
      {"role": "system", "content": "s"},
      {"role": "user", "content": [{"type": "text", "text": "t"}, {"type": "image_url", "image_url": {"url": "u"}},
                                   {"type": "input_text", "text": "unknown part type, still text"}]},
      {"role": "assistant", "content": null, "tool_calls": [
        {"id": "c1", "type": "function", "function": {"name": "f", "arguments": "{\"a\":1}"}}]},
      {"role": "assistant", "function_call": {"name": "g", "arguments": "{}"}},
      {"role": "tool", "tool_call_id": "c1", "content": "result"}
    ]})");
  EXPECT_EQ(paths_of(doc),
            (std::vector<std::string>{"messages[0].content", "messages[1].content[0].text",
                                      "messages[1].content[1].image_url.url", "messages[1].content[2].text",
                                      "messages[2].tool_calls[0].function.arguments",
                                      "messages[3].function_call.arguments", "messages[4].content"}));
}

// Everything else the upstream sees is text too: messages first, then the
// other members in the object's (sorted) order, at any depth.
TEST(PiiRequestTexts, VisitsEveryOtherStringMemberAtAnyDepth) {
  const json doc = json::parse(R"({
    "model": "m",
    "user": "u",
    "stop": ["a", "b"],
    "metadata": {"ticket": "t"},
    "a_member_added_later": {"deep": [{"deeper": "x"}]},
    "messages": [{"role": "user", "name": "n", "content": "c"}],
    "tools": [{"type": "function", "function": {"name": "pay", "description": "d", "strict": true,
      "parameters": {"type": "object", "required": ["card"], "properties": {
        "card": {"type": "string", "description": "pd", "examples": ["e"]},
        "kind": {"type": "string", "enum": ["visa", "amex"], "default": "visa"}}}}}],
    "functions": [{"name": "legacy", "description": "fd", "parameters": {"type": "object"}}],
    "tool_choice": {"type": "function", "function": {"name": "pay"}},
    "function_call": {"name": "legacy"},
    "response_format": {"type": "json_schema", "json_schema": {"name": "out", "description": "rd",
      "schema": {"type": "object", "properties": {"v": {"type": "string", "description": "sd"}}}}},
    "prediction": {"type": "content", "content": "p"},
    "max_tokens": 5, "temperature": 0.2, "stream": false, "logit_bias": {"50256": -100}
  })");
  EXPECT_EQ(paths_of(doc), (std::vector<std::string>{
                               "messages[0].content",
                               "messages[0].name",
                               "a_member_added_later.deep[0].deeper",
                               "functions[0].description",
                               "functions[0].parameters.type",
                               "metadata.ticket",
                               "prediction.content",
                               "prediction.type",
                               "response_format.json_schema.description",
                               "response_format.json_schema.schema.properties.v.description",
                               "response_format.json_schema.schema.properties.v.type",
                               "response_format.json_schema.schema.type",
                               "stop[0]",
                               "stop[1]",
                               "tools[0].function.description",
                               "tools[0].function.parameters.properties.card.description",
                               "tools[0].function.parameters.properties.card.examples[0]",
                               "tools[0].function.parameters.properties.card.type",
                               "tools[0].function.parameters.properties.kind.default",
                               "tools[0].function.parameters.properties.kind.enum[0]",
                               "tools[0].function.parameters.properties.kind.enum[1]",
                               "tools[0].function.parameters.properties.kind.type",
                               "tools[0].function.parameters.required[0]",
                               "tools[0].function.parameters.type",
                               "user",
                           }));
  json single_stop = {{"stop", "s"}, {"tool_choice", "auto"}, {"function_call", "none"}};
  EXPECT_EQ(paths_of(single_stop), (std::vector<std::string>{"stop"}));
}

TEST(PiiRequestTexts, IdentifiersAndBinaryPayloadsAreNotScanned) {
  const json doc = json::parse(R"({"model": "m", "messages": [
    {"role": "user", "content": [
      {"type": "image_url", "image_url": {"url": "data:image/png;base64,QUJD", "detail": "low"}},
      {"type": "image_url", "image_url": {"url": "https://img.example/a.png"}},
      {"type": "image_url", "image_url": "data:image/png;base64,QUJD"},
      {"type": "input_audio", "input_audio": {"data": "QUJD", "format": "wav"}},
      {"type": "file", "file": {"file_data": "QUJD", "file_id": "file-1", "filename": "cv.pdf"}}]},
    {"role": "assistant", "audio": {"id": "audio_1"}, "tool_calls": [
      {"id": "call_1", "type": "function", "function": {"name": "f", "arguments": "{}"}}]},
    {"role": "tool", "tool_call_id": "call_1", "content": "ok"}]})");
  EXPECT_EQ(paths_of(doc),
            (std::vector<std::string>{
                "messages[0].content[0].image_url.detail", "messages[0].content[1].image_url.url",
                "messages[0].content[3].input_audio.format", "messages[0].content[4].file.filename",
                "messages[1].tool_calls[0].function.arguments", "messages[2].content"}));
  for (std::string_view p : identifier_paths()) EXPECT_FALSE(p.empty());
}

TEST(PiiRequestTexts, NonStringValuesHoldNoText) {
  EXPECT_TRUE(
      paths_of(json::parse(R"({"messages": [1, null, {"content": 5}, {"content": [1, {"text": 2}]}]})"))
          .empty());
  EXPECT_TRUE(paths_of(json::parse(R"({"n": 1, "b": true, "z": null, "o": {}, "a": []})")).empty());
  EXPECT_TRUE(paths_of(json::parse(R"("not an object")")).empty());
  // A shape the validation refuses later is still walked as it stands.
  EXPECT_EQ(paths_of(json::parse(R"({"messages": "x"})")), (std::vector<std::string>{"messages"}));
}

TEST(PiiRequestTexts, PathsQuoteMemberNamesThatAreNotIdentifiers) {
  json doc = json::parse(R"({"metadata": {"card number": "a", "q\"uote": "b", "a.b": "c"}})");
  doc["metadata"][std::string(100, 'k')] = "d";
  EXPECT_EQ(paths_of(doc), (std::vector<std::string>{
                               R"(metadata["a.b"])",
                               R"(metadata["card number"])",
                               "metadata[\"" + std::string(64, 'k') + "...\"]",
                               R"(metadata["q\"uote"])",
                           }));
  // The client sees the name it sent, "[]" included, and a member named "[]"
  // is no array element: scanned.
  EXPECT_EQ(paths_of(json::parse(R"({"messages": {"[]": {"role": "r"}}})")),
            (std::vector<std::string>{R"(messages["[]"].role)"}));
}

TEST(PiiRequestTexts, AMemberNameHoldingPersonalDataIsNeverEchoedInThePath) {
  const Detector detector;
  json doc = json::parse(R"({"metadata": {"jane.roe@example.org": {"note": "x"}}})");
  std::vector<std::string> paths;
  for_each_request_text(doc, [&](const TextRef& ref) { paths.push_back(ref.path(&detector)); });
  EXPECT_EQ(paths, (std::vector<std::string>{R"x(metadata["(personal data)"].note)x"}));
}

// The three mode plugins, loaded as the gateway loads them.
class PiiGuardTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    detector_ = new Detector();
    modes_ = new std::map<std::string, std::unique_ptr<plugins::PiiMode>>();
    for (auto [mode, file] :
         {std::pair{"block", MGW_PII_BLOCK_PLUGIN}, std::pair{"mask", MGW_PII_MASK_PLUGIN},
          std::pair{"flag", MGW_PII_FLAG_PLUGIN}}) {
      (*modes_)[mode] = std::make_unique<plugins::PiiMode>(plugins::PluginLibrary::load(file, MGW_KIND_PII),
                                                           mode, json::object());
    }
  }
  static void TearDownTestSuite() {
    delete modes_;
    delete detector_;
  }

  static Policy policy(const std::string& mode, const char* settings = "{}") {
    return make_policy({mode, CategorySet::default_critical(), {"block", "mask", "flag"}},
                       json::parse(settings));
  }
  Verdict inspect(json& doc, const Policy& p) const { return Guard(*detector_, *modes_).inspect(doc, p); }

  static json chat(std::initializer_list<const char*> contents) {
    json doc = {{"model", "m"}, {"messages", json::array()}};
    for (const char* c : contents) doc["messages"].push_back({{"role", "user"}, {"content", c}});
    return doc;
  }

  static inline Detector* detector_ = nullptr;
  static inline std::map<std::string, std::unique_ptr<plugins::PiiMode>>* modes_ = nullptr;
};

TEST_F(PiiGuardTest, BlockRefusesACriticalFindingNamingThePathAndCategoriesButNotTheValue) {
  json doc = chat({"hello", "my mail is a@b.io", "card 4111 1111 1111 1111 and SSN 123-45-6789"});
  const Verdict v = inspect(doc, policy("block"));
  ASSERT_TRUE(v.rejection);
  EXPECT_EQ(v.rejection->status, 422);
  EXPECT_EQ(v.rejection->code, "pii_detected");
  EXPECT_EQ(v.rejection->param, "messages[2].content");
  EXPECT_NE(v.rejection->message.find("payment_card, ssn"), std::string::npos) << v.rejection->message;
  EXPECT_EQ(v.rejection->message.find("4111"), std::string::npos);
  EXPECT_EQ(v.rejection->message.find("6789"), std::string::npos);
  EXPECT_EQ(v.action, "blocked");
  EXPECT_EQ(v.findings_json(), R"({"email":1,"payment_card":1,"ssn":1})");
  EXPECT_FALSE(v.changed);
}

TEST_F(PiiGuardTest, BlockLetsNonCriticalFindingsPassFlagged) {
  json doc = chat({"mail a@b.io, call +1 415 555 0134"});
  const json before = doc;
  const Verdict v = inspect(doc, policy("block"));
  EXPECT_FALSE(v.rejection);
  EXPECT_EQ(v.action, "flagged");
  EXPECT_EQ(v.findings_json(), R"({"email":1,"phone":1})");
  EXPECT_EQ(doc, before);
}

TEST_F(PiiGuardTest, ATenantsCriticalSetDecidesWhatBlocks) {
  json doc = chat({"mail a@b.io"});
  EXPECT_TRUE(inspect(doc, policy("block", R"({"critical":["email"]})")).rejection);
  json card = chat({"card 4111111111111111"});
  EXPECT_FALSE(inspect(card, policy("block", R"({"critical":[]})")).rejection);
}

TEST_F(PiiGuardTest, MaskReplacesEveryValueWithTheSamePlaceholderAcrossTheRequest) {
  json doc = chat({"I am a@b.io, card 4111 1111 1111 1111", "again A@B.io and c@d.io"});
  doc["messages"].push_back(
      {{"role", "assistant"},
       {"content", nullptr},
       {"tool_calls", json::array({{{"id", "1"},
                                    {"type", "function"},
                                    {"function", {{"name", "f"}, {"arguments", R"({"to":"c@d.io"})"}}}}})}});
  const Verdict v = inspect(doc, policy("mask"));
  EXPECT_FALSE(v.rejection);
  EXPECT_TRUE(v.changed);
  EXPECT_EQ(v.action, "masked");
  EXPECT_EQ(doc["messages"][0]["content"], "I am [EMAIL_1], card [PAYMENT_CARD_1]");
  EXPECT_EQ(doc["messages"][1]["content"], "again [EMAIL_1] and [EMAIL_2]");
  EXPECT_EQ(doc["messages"][2]["tool_calls"][0]["function"]["arguments"], R"({"to":"[EMAIL_2]"})");
  EXPECT_EQ(v.findings_json(), R"({"email":4,"payment_card":1})");
  EXPECT_EQ(doc.dump().find("a@b.io"), std::string::npos);
}

TEST_F(PiiGuardTest, EachRequestNumbersItsPlaceholdersFromOne) {
  json first = chat({"x@y.io"});
  json second = chat({"z@y.io"});
  (void)inspect(first, policy("mask"));
  (void)inspect(second, policy("mask"));
  EXPECT_EQ(second["messages"][0]["content"], "[EMAIL_1]");
}

TEST_F(PiiGuardTest, FlagPassesTheRequestUnchangedAndRecords) {
  json doc = chat({"ssn 123-45-6789, from 10.1.2.3"});
  const json before = doc;
  const Verdict v = inspect(doc, policy("flag"));
  EXPECT_EQ(v.action, "flagged");
  EXPECT_FALSE(v.rejection);
  EXPECT_EQ(doc, before);
  EXPECT_EQ(v.summary(), "ssn=1,ip_address=1");
}

TEST_F(PiiGuardTest, OffScansNothing) {
  json doc = chat({"card 4111111111111111"});
  const Verdict v = inspect(doc, policy("off"));
  EXPECT_FALSE(v.any());
  EXPECT_EQ(v.findings_json(), "");
  EXPECT_EQ(v.summary(), "-");
}

TEST_F(PiiGuardTest, AllowedValuesAreNotFindings) {
  json doc = chat({"write to Help@Acme.example or call +1 800 555 0100; I am a@b.io"});
  const Verdict v = inspect(doc, policy("mask", R"({"allow":["help@acme.example","+1 (800) 555-0100"]})"));
  EXPECT_EQ(doc["messages"][0]["content"],
            "write to Help@Acme.example or call +1 800 555 0100; I am [EMAIL_1]");
  EXPECT_EQ(v.findings_json(), R"({"email":1})");
}

TEST_F(PiiGuardTest, ACleanRequestIsUntouchedAndRecordsNothing) {
  json doc = chat({"What is the capital of France?", "And of Spain?"});
  const Verdict v = inspect(doc, policy("block"));
  EXPECT_FALSE(v.any());
  EXPECT_FALSE(v.changed);
}

// A door inspects its chat request, then its native request with the same
// texts: what the first found clean is not scanned again, and only that.
TEST_F(PiiGuardTest, ATextTheFirstInspectionFoundCleanIsNotScannedAgain) {
  const Guard guard(*detector_, *modes_);
  const std::string clean_text = "What is the capital of France, and how large is it today?";
  json chat_doc = chat({clean_text.c_str()});
  CleanTexts clean;
  EXPECT_FALSE(guard.inspect(chat_doc, policy("block"), {0, &clean}).any());
  EXPECT_TRUE(clean.contains(clean_text));

  // The memo holds texts by value, so the same text in another document is
  // known clean; a text it does not hold is scanned as ever.
  json native = {{"input", clean_text}, {"instructions", "Reply to a@b.io about card 4111 1111 1111 1111"}};
  const Verdict v = guard.inspect(native, policy("block"), {0, &clean});
  ASSERT_TRUE(v.rejection);
  EXPECT_EQ(v.rejection->param, "instructions");
}

// What the memo holds is trusted, not scanned: which is why only the guard
// itself adds to it, and only texts it scanned clean under the same policy.
TEST_F(PiiGuardTest, ATextTheMemoHoldsIsPassedWithoutAScan) {
  const Guard guard(*detector_, *modes_);
  const std::string text = "Reply to a@b.io about the card 4111 1111 1111 1111 today";
  json doc = chat({text.c_str()});
  CleanTexts clean;
  clean.add(text);
  EXPECT_FALSE(guard.inspect(doc, policy("block"), {0, &clean}).any());
  json again = chat({text.c_str()});
  EXPECT_TRUE(guard.inspect(again, policy("block")).rejection) << "without the memo it is scanned";
}

TEST_F(PiiGuardTest, ATextWithAFindingIsNeverKeptAsClean) {
  const Guard guard(*detector_, *modes_);
  const std::string card = "Please charge the card 4111 1111 1111 1111 for the order";
  const std::string mail = "Please send the receipt for the order to a@b.io today";
  json doc = chat({card.c_str(), mail.c_str()});
  CleanTexts clean;
  EXPECT_FALSE(guard.inspect(doc, policy("flag"), {0, &clean}).rejection);
  EXPECT_FALSE(clean.contains(card));
  EXPECT_FALSE(clean.contains(mail));

  // So the native form's copy is blocked though the chat form was only flagged.
  json native = chat({card.c_str()});
  const Verdict v = guard.inspect(native, policy("block"), {0, &clean});
  ASSERT_TRUE(v.rejection);
  EXPECT_EQ(v.rejection->param, "messages[0].content");
}

// An allowed value is the policy's decision, not the detector's: the text
// is scanned again in the native form, which may be inspected under
// another policy (the tenant's settings changed in between).
TEST_F(PiiGuardTest, ATextWhoseFindingsThePolicyAllowsIsNotKeptAsClean) {
  const Guard guard(*detector_, *modes_);
  const std::string text = "For help write to help@acme.example at any hour of the day";
  json doc = chat({text.c_str()});
  CleanTexts clean;
  const Policy allowing = policy("block", R"({"allow":["help@acme.example"]})");
  EXPECT_FALSE(guard.inspect(doc, allowing, {0, &clean}).any());
  EXPECT_FALSE(clean.contains(text));
  EXPECT_EQ(doc["messages"][0]["content"], text);
  json native = chat({text.c_str()});
  EXPECT_TRUE(guard.inspect(native, policy("block", R"({"critical":["email"]})"), {0, &clean}).rejection);
}

// A short text is scanned again rather than kept: hashing it costs more.
TEST_F(PiiGuardTest, AShortTextIsNotKept) {
  const Guard guard(*detector_, *modes_);
  json doc = chat({"hello"});
  CleanTexts clean;
  (void)guard.inspect(doc, policy("flag"), {0, &clean});
  EXPECT_FALSE(clean.contains("hello"));
}

// Across requests: a tenant's text the detector found nothing in is not
// scanned again when the tenant sends it again (the next turn of a
// conversation resends the earlier ones).
TEST_F(PiiGuardTest, ATenantsCleanTextIsRememberedAcrossRequests) {
  const Guard guard(*detector_, *modes_);
  const std::string system(300, 'x');
  const std::string turn = "Summarise the quarterly report in three sentences for the board, " + system;
  for (int request = 0; request < 5; ++request) {
    json doc = chat({turn.c_str()});
    EXPECT_FALSE(guard.inspect(doc, policy("block"), {7}).any());
  }
  // The first request notes the text's hint, the second keeps its digest,
  // the other three find it.
  EXPECT_EQ(guard.remembered(), 3u) << "scanned on the first two requests only";

  // Another tenant's copy of the same text is its own: scanned.
  for (int request = 0; request < 2; ++request) {
    json other = chat({turn.c_str()});
    EXPECT_FALSE(guard.inspect(other, policy("block"), {8}).any());
  }
  EXPECT_EQ(guard.remembered(), 3u);
  // Without a tenant nothing is remembered or looked up.
  json anonymous = chat({turn.c_str()});
  (void)guard.inspect(anonymous, policy("block"));
  EXPECT_EQ(guard.remembered(), 3u);
}

TEST_F(PiiGuardTest, ATextWithAFindingIsScannedOnEveryRequest) {
  const Guard guard(*detector_, *modes_);
  const std::string text = "Please write to a@b.io about the order " + std::string(200, 'y');
  for (int request = 0; request < 4; ++request) {
    json doc = chat({text.c_str()});
    const Verdict v = guard.inspect(doc, policy("mask"), {7});
    EXPECT_EQ(v.findings_json(), R"({"email":1})") << "request " << request;
  }
  // Allowed by this policy is not clean: the next policy may not allow it.
  const Policy allowing = policy("block", R"({"allow":["a@b.io"]})");
  json allowed = chat({text.c_str()});
  EXPECT_FALSE(guard.inspect(allowed, allowing, {7}).any());
  json blocked = chat({text.c_str()});
  EXPECT_TRUE(guard.inspect(blocked, policy("block", R"({"critical":["email"]})"), {7}).rejection);
  EXPECT_EQ(guard.remembered(), 0u);
}

TEST_F(PiiGuardTest, AShortTextIsScannedOnEveryRequest) {
  const Guard guard(*detector_, *modes_);
  for (int request = 0; request < 4; ++request) {
    json doc = chat({"What is the capital of France?"});
    (void)guard.inspect(doc, policy("block"), {7});
  }
  EXPECT_EQ(guard.remembered(), 0u);
}

TEST_F(PiiGuardTest, TenThousandMessagesAreScannedAndMasked) {
  json doc = {{"model", "m"}, {"messages", json::array()}};
  for (int i = 0; i < 10000; ++i) {
    doc["messages"].push_back(
        {{"role", "user"},
         {"content", "note " + std::to_string(i) + " from u" + std::to_string(i % 7) + "@x.io"}});
  }
  const Verdict v = inspect(doc, policy("mask"));
  EXPECT_EQ(v.counts[static_cast<std::size_t>(Category::email)], 10000u);
  EXPECT_EQ(doc["messages"][9999]["content"], "note 9999 from [EMAIL_4]") << "u3, the fourth value seen";
}

TEST_F(PiiGuardTest, InvalidUtf8AndNulBytesAreMaskedAroundNotDropped) {
  json doc = {
      {"model", "m"},
      {"messages", json::array({{{"role", "user"}, {"content", std::string("\xff a@b.io \0 x", 13)}}})}};
  const Verdict v = inspect(doc, policy("mask"));
  EXPECT_EQ(doc["messages"][0]["content"].get<std::string>(), std::string("\xff [EMAIL_1] \0 x", 16));
  EXPECT_TRUE(v.changed);
}

// A value disguised with Unicode look-alikes is found on the normalised text;
// the mode plugin gets offsets into the original, so mask replaces exactly the
// value's original bytes (the zero-width characters inside it too).
TEST_F(PiiGuardTest, MaskReplacesTheOriginalBytesOfADisguisedValue) {
  json doc =
      chat({"Grüße \xE2\x80\x8B card \xEF\xBC\x94\xEF\xBC\x91\xEF\xBC\x91\xEF\xBC\x91\xE2\x80\x8B"
            "1111\xE2\x80\x8B"
            "1111\xE2\x80\x8B"
            "1111\xE2\x80\x8B, mail jane\xEF\xBC\xA0"
            "example.org \xE2\x80\x94 ok"});
  const Verdict v = inspect(doc, policy("mask"));
  EXPECT_TRUE(v.changed);
  EXPECT_EQ(doc["messages"][0]["content"],
            "Grüße \xE2\x80\x8B card [PAYMENT_CARD_1]\xE2\x80\x8B, mail [EMAIL_1] \xE2\x80\x94 ok");
  EXPECT_EQ(v.findings_json(), R"({"email":1,"payment_card":1})");
}

TEST_F(PiiGuardTest, BlockRefusesADisguisedCriticalValue) {
  json doc =
      chat({"SSN 123\xE2\x80\x93"
            "45\xE2\x80\x93"
            "6789"});
  const Verdict v = inspect(doc, policy("block"));
  ASSERT_TRUE(v.rejection);
  EXPECT_EQ(v.rejection->param, "messages[0].content");
  EXPECT_EQ(v.findings_json(), R"({"ssn":1})");
}

// The allow-list compares the value as it was detected: a tenant's own
// address written with a full-width @ is still its own address.
TEST_F(PiiGuardTest, AnAllowedValueInDisguiseIsStillAllowed) {
  json doc =
      chat({"write to help\xEF\xBC\xA0"
            "acme.example or a@b.io"});
  const Verdict v = inspect(doc, policy("mask", R"({"allow":["help@acme.example"]})"));
  EXPECT_EQ(doc["messages"][0]["content"],
            "write to help\xEF\xBC\xA0"
            "acme.example or [EMAIL_1]");
  EXPECT_EQ(v.findings_json(), R"({"email":1})");
}

// A chat body whose tool declares a "card" parameter with `description`.
json with_tool(const std::string& description) {
  json doc = {{"model", "m"}, {"messages", json::array({{{"role", "user"}, {"content", "hi"}}})}};
  doc["tools"] =
      json::array({{{"type", "function"},
                    {"function",
                     {{"name", "pay"},
                      {"description", "Charge a card"},
                      {"parameters",
                       {{"type", "object"},
                        {"properties", {{"card", {{"type", "string"}, {"description", description}}}}}}}}}}});
  return doc;
}

TEST_F(PiiGuardTest, BlockNamesThePathOfAValueOutsideTheMessages) {
  json in_user = chat({"hello"});
  in_user["user"] = "customer 4111 1111 1111 1111";
  Verdict v = inspect(in_user, policy("block"));
  ASSERT_TRUE(v.rejection);
  EXPECT_EQ(v.rejection->param, "user");
  EXPECT_EQ(v.rejection->message.find("4111"), std::string::npos);

  json in_tool = with_tool("for example 4111 1111 1111 1111");
  v = inspect(in_tool, policy("block"));
  ASSERT_TRUE(v.rejection);
  EXPECT_EQ(v.rejection->param, "tools[0].function.parameters.properties.card.description");
  EXPECT_EQ(v.findings_json(), R"({"payment_card":1})");

  json in_stop = chat({"hello"});
  in_stop["stop"] = json::array({"END", "SSN 123-45-6789"});
  v = inspect(in_stop, policy("block"));
  ASSERT_TRUE(v.rejection);
  EXPECT_EQ(v.rejection->param, "stop[1]");

  json in_enum = with_tool("a card");
  in_enum["tools"][0]["function"]["parameters"]["properties"]["card"]["enum"] =
      json::array({"none", "4111111111111111"});
  v = inspect(in_enum, policy("block"));
  ASSERT_TRUE(v.rejection);
  EXPECT_EQ(v.rejection->param, "tools[0].function.parameters.properties.card.enum[1]");
}

TEST_F(PiiGuardTest, MaskReplacesValuesInPlaceWhereverTheyStand) {
  json doc = chat({"I am a@b.io"});
  doc["messages"][0]["name"] = "c@d.io";
  doc["user"] = "a@b.io";
  doc["stop"] = json::array({"END", "e@f.io"});
  doc["metadata"] = {{"owner", "c@d.io"}};
  doc["response_format"] = {
      {"type", "json_schema"},
      {"json_schema", {{"name", "out"}, {"description", "answer g@h.io"}, {"schema", {{"type", "object"}}}}}};
  const Verdict v = inspect(doc, policy("mask"));
  EXPECT_EQ(v.action, "masked");
  // The messages are numbered first, then the other members in sorted order.
  EXPECT_EQ(doc["messages"][0]["content"], "I am [EMAIL_1]");
  EXPECT_EQ(doc["messages"][0]["name"], "[EMAIL_2]");
  EXPECT_EQ(doc["user"], "[EMAIL_1]");
  EXPECT_EQ(doc["stop"], json::array({"END", "[EMAIL_4]"}));
  EXPECT_EQ(doc["metadata"]["owner"], "[EMAIL_2]");
  EXPECT_EQ(doc["response_format"]["json_schema"]["description"], "answer [EMAIL_3]");
  EXPECT_EQ(doc["response_format"]["json_schema"]["name"], "out");
  EXPECT_EQ(v.findings_json(), R"({"email":6})");
}

TEST_F(PiiGuardTest, FlagRecordsFindingsInToolSchemasAndLeavesThemAlone) {
  json doc = with_tool("the caller's number, e.g. 0151 41398296");
  const json before = doc;
  const Verdict v = inspect(doc, policy("flag"));
  EXPECT_EQ(v.action, "flagged");
  EXPECT_EQ(v.summary(), "phone=1");
  EXPECT_EQ(doc, before);
}

TEST_F(PiiGuardTest, IdentifiersAreNeitherBlockedNorMasked) {
  json doc = chat({"hi"});
  doc["tool_choice"] = {{"type", "function"}, {"function", {{"name", "a@b.io"}}}};
  doc["messages"][0]["content"] =
      json::array({{{"type", "image_url"}, {"image_url", {{"url", "data:text/plain,a@b.io"}}}}});
  const json before = doc;
  const Verdict v = inspect(doc, policy("mask"));
  EXPECT_FALSE(v.any());
  EXPECT_EQ(doc, before);
}

TEST_F(PiiGuardTest, ACleanRequestWithToolsIsUntouchedAndRecordsNothing) {
  json doc = with_tool("The card number to charge, as printed");
  doc["user"] = "user-7f3a";
  doc["stop"] = "END";
  const Verdict v = inspect(doc, policy("block"));
  EXPECT_FALSE(v.any());
}

TEST_F(PiiGuardTest, AModeThatIsNotLoadedFailsClosed) {
  json doc = chat({"hello"});
  Policy p = policy("flag");
  p.mode = "redact";
  EXPECT_THROW(inspect(doc, p), plugins::PluginError);
}

}  // namespace
}  // namespace modelgw::pii
