// GET /v1/usage's operation filter: checked strictly, passed to storage,
// bound into the cursor, and each record's operation in the answer.
#include "usage/usage_query.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <string>
#include <variant>
#include <vector>

namespace modelgw::usage {
namespace {

using nlohmann::json;

// Remembers the filters it was asked with and answers with fixed rows.
struct FakeStore : UsageStore {
  std::vector<plugins::UsageRow> rows;
  std::vector<plugins::UsageFilter> pages, sums;
  std::vector<plugins::UsageRow> usage_page(const plugins::UsageFilter& f) override {
    pages.push_back(f);
    return rows;
  }
  std::vector<plugins::UsageGroup> usage_totals(const plugins::UsageFilter& f) override {
    sums.push_back(f);
    return {plugins::UsageGroup{}};
  }
};

std::string error_param(std::string_view query) {
  auto parsed = parse_usage_query(query, 1);
  auto* err = std::get_if<errors::ApiError>(&parsed);
  if (err == nullptr) return "<accepted>";
  EXPECT_EQ(err->status, 400);
  EXPECT_EQ(err->code, "invalid_parameter");
  return err->param;
}

TEST(UsageQueryOperation, KnownShapesAreTakenAsTheFilter) {
  for (const char* op : {"chat.completions", "responses", "messages", "embeddings"}) {
    auto parsed = parse_usage_query(std::string("operation=") + op, 1);
    ASSERT_TRUE(std::holds_alternative<UsageRequest>(parsed)) << op;
    EXPECT_EQ(std::get<UsageRequest>(parsed).filter.operation, op);
  }
  auto none = parse_usage_query("", 1);
  ASSERT_TRUE(std::holds_alternative<UsageRequest>(none));
  EXPECT_EQ(std::get<UsageRequest>(none).filter.operation, "") << "no parameter: any operation";
}

TEST(UsageQueryOperation, AnythingElseIsA400NamingTheParameter) {
  EXPECT_EQ(error_param("operation="), "operation");
  EXPECT_EQ(error_param("operation=BAD!"), "operation");
  EXPECT_EQ(error_param("operation=Chat.completions"), "operation");
  EXPECT_EQ(error_param("operation=chat_completions"), "operation");
  EXPECT_EQ(error_param("operation=chat%20completions"), "operation");
  EXPECT_EQ(error_param("operation=" + std::string(33, 'a')), "operation");
  EXPECT_EQ(error_param("operation=" + std::string(32, 'a')), "<accepted>");
  EXPECT_EQ(error_param("operation=responses&operation=responses"), "operation") << "given twice";
}

TEST(UsageQueryOperation, TheCursorIsBoundToTheOperation) {
  FakeStore store;
  for (int i = 0; i < 3; ++i) {
    plugins::UsageRow r;
    r.request_id = "req_" + std::to_string(i);
    r.seq = 10 - i;
    r.operation = "responses";
    store.rows.push_back(r);
  }
  const auto answer = answer_usage_query("operation=responses&limit=2", 1, store, 0);
  ASSERT_FALSE(answer.error);
  const json body = json::parse(answer.body);
  ASSERT_TRUE(body["next_cursor"].is_string());
  const std::string cursor = body["next_cursor"];
  EXPECT_TRUE(std::holds_alternative<UsageRequest>(
      parse_usage_query("operation=responses&limit=2&cursor=" + cursor, 1)));
  EXPECT_EQ(error_param("operation=chat.completions&limit=2&cursor=" + cursor), "cursor");
  EXPECT_EQ(error_param("limit=2&cursor=" + cursor), "cursor");
}

TEST(UsageQueryOperation, TheFilterReachesStorageAndEachRecordSaysItsOperation) {
  FakeStore store;
  plugins::UsageRow chat;  // the default
  chat.request_id = "req_chat";
  chat.seq = 2;
  plugins::UsageRow responses;
  responses.request_id = "req_responses";
  responses.seq = 1;
  responses.operation = "responses";
  store.rows = {chat, responses};
  const auto answer = answer_usage_query("operation=chat.completions", 1, store, 0);
  ASSERT_FALSE(answer.error);
  ASSERT_FALSE(store.pages.empty());
  EXPECT_EQ(store.pages[0].operation, "chat.completions");
  ASSERT_FALSE(store.sums.empty());
  EXPECT_EQ(store.sums[0].operation, "chat.completions") << "totals are over the same filter";
  const json body = json::parse(answer.body);
  ASSERT_EQ(body["data"].size(), 2u);
  EXPECT_EQ(body["data"][0]["operation"], "chat.completions");
  EXPECT_EQ(body["data"][1]["operation"], "responses");
}

}  // namespace
}  // namespace modelgw::usage

namespace modelgw::usage {
namespace {

// The usage writer commits between the answer's two reads: a record on the
// page must already be in the totals (found from outside: a page of 20
// records whose totals counted none of them).
struct WriterRacingStore : UsageStore {
  std::int64_t committed = 0;  // records the writer has committed so far
  std::vector<plugins::UsageRow> usage_page(const plugins::UsageFilter&) override {
    committed = 3;  // a batch of 3 lands just before the page is read
    std::vector<plugins::UsageRow> out(static_cast<std::size_t>(committed));
    for (std::size_t i = 0; i < out.size(); ++i) {
      out[i].seq = static_cast<std::int64_t>(out.size() - i);
      out[i].cost_micros = 1000;
    }
    return out;
  }
  std::vector<plugins::UsageGroup> usage_totals(const plugins::UsageFilter&) override {
    plugins::UsageGroup g;
    g.requests = committed;
    g.cost_micros = committed * 1000;
    return {g};
  }
};

TEST(UsageQueryConsistency, EveryRecordOnThePageIsInTheTotals) {
  WriterRacingStore store;
  const auto answer = answer_usage_query("", 1, store, 0);
  ASSERT_FALSE(answer.error.has_value());
  const json body = json::parse(answer.body);
  ASSERT_EQ(body["data"].size(), 3u);
  EXPECT_EQ(body["totals"]["requests"], 3) << body.dump();
  EXPECT_EQ(body["totals"]["cost_micros"], 3000) << body.dump();
}

}  // namespace
}  // namespace modelgw::usage
