// Named prompts: version numbering, the one active version, find, list,
// activate, and tenants kept apart.
#include "fixture.h"

namespace storage_test {
namespace {

using ::testing::HasSubstr;

class PromptsTest : public StorageTest {
 protected:
  void SetUp() override {
    StorageTest::SetUp();
    acme_ = create_tenant(storage(), "acme");
    other_ = create_tenant(storage(), "other");
  }

  int64_t acme_ = 0;
  int64_t other_ = 0;

  int64_t add(int64_t tenant, const std::string& name, bool activate = false,
              const std::string& model = "fast") {
    PromptVersion v;
    v.tenant_id = tenant;
    v.name = name;
    v.model = model;
    auto record = v.record();
    int64_t number = 0;
    mgw::testing::TextRecorder error;
    EXPECT_EQ(h().on_prompt_version_create(storage(), &record, activate ? 1 : 0, &number, &error.sink),
              MGW_OK)
        << error.text;
    return number;
  }

  std::optional<PromptVersion> find(int64_t tenant, const std::string& name, int64_t version) {
    RowRecorder rows;
    auto st = h().on_prompt_version_find(storage(), tenant, mgw::str(name), version, &rows.sink, nullptr);
    if (st == MGW_NOT_FOUND) return std::nullopt;
    EXPECT_EQ(st, MGW_OK);
    EXPECT_EQ(rows.prompts.size(), 1u);
    return rows.prompts.empty() ? std::nullopt : std::optional(rows.prompts[0]);
  }

  std::vector<PromptVersion> list(int64_t tenant, const std::string& name = {}) {
    RowRecorder rows;
    EXPECT_EQ(h().on_prompt_version_list(storage(), tenant, mgw::str(name), &rows.sink, nullptr), MGW_OK);
    return rows.prompts;
  }
};

TEST_P(PromptsTest, VersionsAreNumberedFromOnePerPrompt) {
  EXPECT_EQ(add(acme_, "greet"), 1);
  EXPECT_EQ(add(acme_, "greet"), 2);
  EXPECT_EQ(add(acme_, "other"), 1);
  EXPECT_EQ(add(acme_, "greet"), 3);
  EXPECT_EQ(add(other_, "greet"), 1) << "another tenant's prompt of the same name is a different prompt";
}

TEST_P(PromptsTest, FirstVersionIsActiveAndLaterOnesOnlyWhenAsked) {
  add(acme_, "greet");
  add(acme_, "greet");
  EXPECT_EQ(find(acme_, "greet", 0)->version, 1);
  add(acme_, "greet", /*activate=*/true);
  EXPECT_EQ(find(acme_, "greet", 0)->version, 3);
}

TEST_P(PromptsTest, FindReturnsEveryField) {
  PromptVersion v;
  v.tenant_id = acme_;
  v.name = "greet";
  v.template_json = R"([{"role":"user","content":"{{x}}"}])";
  v.model = "smart";
  v.parameters_json = R"({"max_tokens":5})";
  v.created_unix_ms = 1700000000999;
  auto record = v.record();
  int64_t number = 0;
  ASSERT_EQ(h().on_prompt_version_create(storage(), &record, 0, &number, nullptr), MGW_OK);
  auto got = find(acme_, "greet", 1);
  ASSERT_TRUE(got);
  EXPECT_EQ(got->tenant_id, acme_);
  EXPECT_EQ(got->name, "greet");
  EXPECT_EQ(got->version, 1);
  EXPECT_TRUE(got->active);
  EXPECT_EQ(got->template_json, v.template_json);
  EXPECT_EQ(got->model, "smart");
  EXPECT_EQ(got->parameters_json, v.parameters_json);
  EXPECT_EQ(got->created_unix_ms, 1700000000999);
}

TEST_P(PromptsTest, FindUnknownPromptOrVersionIsNotFound) {
  add(acme_, "greet");
  EXPECT_FALSE(find(acme_, "nope", 0));
  EXPECT_FALSE(find(acme_, "greet", 2));
  EXPECT_FALSE(find(other_, "greet", 0)) << "tenants never see each other's prompts";
}

TEST_P(PromptsTest, ActivateMovesTheOneActiveVersion) {
  add(acme_, "greet");
  add(acme_, "greet");
  add(acme_, "greet");
  ASSERT_EQ(h().on_prompt_activate(storage(), acme_, mgw::str("greet"), 2, nullptr), MGW_OK);
  EXPECT_EQ(find(acme_, "greet", 0)->version, 2);
  int active = 0;
  for (const auto& v : list(acme_, "greet")) active += v.active ? 1 : 0;
  EXPECT_EQ(active, 1);
  EXPECT_FALSE(find(acme_, "greet", 1)->active);
  EXPECT_TRUE(find(acme_, "greet", 2)->active);
}

TEST_P(PromptsTest, ActivateUnknownVersionIsNotFoundAndChangesNothing) {
  add(acme_, "greet");
  EXPECT_EQ(h().on_prompt_activate(storage(), acme_, mgw::str("greet"), 7, nullptr), MGW_NOT_FOUND);
  EXPECT_EQ(h().on_prompt_activate(storage(), other_, mgw::str("greet"), 1, nullptr), MGW_NOT_FOUND);
  EXPECT_EQ(find(acme_, "greet", 0)->version, 1);
}

TEST_P(PromptsTest, ListIsByNameThenVersionAndPerTenant) {
  add(acme_, "b");
  add(acme_, "a");
  add(acme_, "b");
  add(other_, "a");
  auto all = list(acme_);
  ASSERT_EQ(all.size(), 3u);
  EXPECT_EQ(all[0].name, "a");
  EXPECT_EQ(all[1].name, "b");
  EXPECT_EQ(all[1].version, 1);
  EXPECT_EQ(all[2].version, 2);
  EXPECT_EQ(list(acme_, "b").size(), 2u);
  EXPECT_TRUE(list(acme_, "zzz").empty());
}

TEST_P(PromptsTest, UnknownTenantIsInvalidArgument) {
  PromptVersion v;
  v.tenant_id = 9999;
  v.name = "greet";
  auto record = v.record();
  mgw::testing::TextRecorder error;
  EXPECT_EQ(h().on_prompt_version_create(storage(), &record, 0, nullptr, &error.sink), MGW_INVALID_ARGUMENT);
  EXPECT_FALSE(error.text.empty());
}

TEST_P(PromptsTest, EmptyNameIsRefused) {
  PromptVersion v;
  v.tenant_id = acme_;
  v.name = "";
  auto record = v.record();
  mgw::testing::TextRecorder error;
  EXPECT_EQ(h().on_prompt_version_create(storage(), &record, 0, nullptr, &error.sink), MGW_INVALID_ARGUMENT);
  EXPECT_THAT(error.text, HasSubstr("name"));
}

TEST_P(PromptsTest, ConcurrentCreatesNeverShareANumber) {
  constexpr int kThreads = 4, kEach = 25;
  std::vector<std::thread> threads;
  std::vector<std::vector<int64_t>> numbers(kThreads);
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < kEach; ++i) numbers[t].push_back(add(acme_, "busy"));
    });
  }
  for (auto& th : threads) th.join();
  std::set<int64_t> seen;
  for (const auto& n : numbers) seen.insert(n.begin(), n.end());
  EXPECT_EQ(seen.size(), static_cast<std::size_t>(kThreads * kEach));
  EXPECT_EQ(*seen.begin(), 1);
  EXPECT_EQ(*seen.rbegin(), kThreads * kEach);
}

TEST_P(PromptsTest, AnOlderHostsRowSinkIsNeverCalledPastItsSize) {
  add(acme_, "greet");
  RowRecorder rows;
  rows.sink.struct_size = offsetof(mgw_row_sink, callback_prompt_version);  // a sink without the callback
  rows.sink.callback_prompt_version = nullptr;
  EXPECT_EQ(h().on_prompt_version_list(storage(), acme_, mgw::str(""), &rows.sink, nullptr), MGW_OK);
  EXPECT_TRUE(rows.prompts.empty());
}

INSTANTIATE_TEST_SUITE_P(Backends, PromptsTest, MGW_STORAGE_BACKENDS);

}  // namespace
}  // namespace storage_test
