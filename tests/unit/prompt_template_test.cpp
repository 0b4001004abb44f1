// Prompt templates: what registration accepts and refuses, the variable list,
// and filling: one pass, plain-text values, missing names reported.
#include "prompts/template.h"

#include <gtest/gtest.h>

namespace modelgw::prompts {
namespace {

using nlohmann::json;

json user(const std::string& text) {
  return json::array({{{"role", "user"}, {"content", text}}});
}

std::vector<std::string> vars(const json& messages) {
  auto r = check_template(messages);
  if (auto* e = std::get_if<TemplateError>(&r)) {
    ADD_FAILURE() << e->path << ": " << e->message;
    return {};
  }
  return std::get<std::vector<std::string>>(r);
}

TemplateError error_of(const json& messages) {
  auto r = check_template(messages);
  EXPECT_TRUE(std::holds_alternative<TemplateError>(r)) << messages.dump();
  return std::holds_alternative<TemplateError>(r) ? std::get<TemplateError>(r) : TemplateError{};
}

TEST(PromptTemplate, ListsVariablesInFirstUseOrderOnce) {
  EXPECT_EQ(vars(user("{{b}} and {{a}} and {{ b }} and {{_c9}}")),
            (std::vector<std::string>{"b", "a", "_c9"}));
  EXPECT_TRUE(vars(user("no placeholders } }} here")).empty());
}

TEST(PromptTemplate, ReadsTextPartsAndSkipsOthers) {
  json m = json::array({{{"role", "user"},
                         {"content",
                          {{{"type", "text"}, {"text", "look at {{thing}}"}},
                           {{"type", "image_url"}, {"image_url", {{"url", "https://x/{{not_a_var}}"}}}}}}}});
  EXPECT_EQ(vars(m), std::vector<std::string>{"thing"});
}

TEST(PromptTemplate, UnclosedPlaceholderNamesWhereItIs) {
  auto e = error_of(
      json::array({{{"role", "system"}, {"content", "ok"}}, {{"role", "user"}, {"content", "hi {{name"}}}));
  EXPECT_EQ(e.path, "template[1].content");
  EXPECT_NE(e.message.find("never closed"), std::string::npos) << e.message;
  EXPECT_NE(e.message.find("character 3"), std::string::npos) << e.message;
}

TEST(PromptTemplate, IllegalNamesAreRefused) {
  for (const char* bad :
       {"{{}}", "{{ }}", "{{9lives}}", "{{first name}}", "{{a-b}}", "{{a.b}}", "{{{x}}}", "{{é}}"}) {
    auto e = error_of(user(std::string("x ") + bad));
    EXPECT_NE(e.message.find("not a valid placeholder"), std::string::npos) << bad << ": " << e.message;
  }
  EXPECT_FALSE(is_variable_name(std::string(65, 'a')));
  EXPECT_TRUE(is_variable_name(std::string(64, 'a')));
}

TEST(PromptTemplate, AnIllegalPlaceholderIsQuotedBoundedAndEscaped) {
  auto e = error_of(user("x {{" + std::string(1 << 20, '"') + "}}"));
  EXPECT_NE(e.message.find("not a valid placeholder"), std::string::npos);
  EXPECT_LT(e.message.size(), 1024u);
  EXPECT_EQ(e.message.find('"'), std::string::npos) << e.message;
}

TEST(PromptTemplate, ShapeErrorsNameTheMember) {
  EXPECT_EQ(error_of(json::array()).path, "template");
  EXPECT_EQ(error_of(json::object()).path, "template");
  EXPECT_EQ(error_of(json::array({"text"})).path, "template[0]");
  EXPECT_EQ(error_of(json::array({{{"role", "tool"}, {"content", "x"}}})).path, "template[0].role");
  EXPECT_EQ(error_of(json::array({{{"role", "user"}}})).path, "template[0].content");
  EXPECT_EQ(error_of(json::array({{{"role", "user"}, {"content", {{{"type", "text"}}}}}})).path,
            "template[0].content[0].text");
}

TEST(PromptTemplate, FillReplacesEveryPlaceholder) {
  auto r = fill_template(user("Dear {{ who }}, {{what}} {{who}}."), {{"who", "Ana"}, {"what", "hello"}});
  ASSERT_TRUE(std::holds_alternative<json>(r));
  EXPECT_EQ(std::get<json>(r)[0]["content"], "Dear Ana, hello Ana.");
}

TEST(PromptTemplate, ValuesAreNeverExpandedAgain) {
  auto r = fill_template(user("{{a}}|{{b}}"), {{"a", "{{b}}"}, {"b", "{{a}}"}});
  ASSERT_TRUE(std::holds_alternative<json>(r));
  EXPECT_EQ(std::get<json>(r)[0]["content"], "{{b}}|{{a}}");
}

TEST(PromptTemplate, MissingVariableIsNamed) {
  auto r = fill_template(user("{{a}} {{b}}"), {{"a", "x"}});
  ASSERT_TRUE(std::holds_alternative<MissingVariable>(r));
  EXPECT_EQ(std::get<MissingVariable>(r).name, "b");
}

TEST(PromptTemplate, FillLeavesTheTemplateAndNonTextPartsAlone) {
  json m = json::array(
      {{{"role", "user"},
        {"content",
         {{{"type", "text"}, {"text", "{{x}}"}}, {{"type", "image_url"}, {"image_url", {{"url", "u"}}}}}}}});
  const json before = m;
  auto r = fill_template(m, {{"x", "filled"}});
  EXPECT_EQ(m, before);
  EXPECT_EQ(std::get<json>(r)[0]["content"][0]["text"], "filled");
  EXPECT_EQ(std::get<json>(r)[0]["content"][1], before[0]["content"][1]);
}

TEST(PromptTemplate, LongAndHostileTextIsLinear) {
  // 1 MiB of "{{" with no close: refused without quadratic work (bounded by the test timeout).
  std::string text;
  for (int i = 0; i < 1 << 19; ++i) text += "{{";
  EXPECT_NE(error_of(user(text)).message.find("never closed"), std::string::npos);
  std::string many;
  for (int i = 0; i < 20000; ++i) many += "{{v}} ";
  auto r = fill_template(user(many), {{"v", "x"}});
  EXPECT_EQ(std::get<json>(r)[0]["content"].get<std::string>().size(), 40000u);
}

}  // namespace
}  // namespace modelgw::prompts
