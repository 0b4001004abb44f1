// The usage writer loses nothing: batches storage refuses go to the journal
// and are replayed exactly once when it answers; when the journal cannot be
// written either, recording() turns false (chat gets 503) and the records stay
// in memory until one of the two takes them; stop() drains everything.
#include "usage/usage_writer.h"
#include "storage_fixture.h"
#include "usage/journal_line.h"
#include "usage/usage_journal.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <atomic>
#include <chrono>
#include <fstream>
#include <mutex>
#include <set>
#include <thread>

namespace {

using namespace std::chrono_literals;
using modelgw::plugins::UsageRow;
using modelgw::usage::UsageJournal;
using modelgw::usage::UsageWriter;
using modelgw::usage::WriterOptions;

UsageRow row(int i) {
  UsageRow r;
  r.request_id = "req_" + std::to_string(i);
  r.tenant_id = 1;
  r.alias = "m";
  r.provider = "p";
  r.http_status = 200;
  r.created_unix_ms = 1000 + i;
  return r;
}

// A store that fails while `down` is set and remembers what it took.
struct FlakyStore {
  std::atomic<bool> down{false};
  std::atomic<int> calls{0};
  std::mutex mutex;
  std::vector<std::string> ids;  // every request_id stored, duplicates included

  UsageWriter::Store fn() {
    return [this](const std::vector<UsageRow>& rows) {
      ++calls;
      if (down) throw std::runtime_error("database is locked");
      std::lock_guard lock(mutex);
      for (const auto& r : rows) ids.push_back(r.request_id);
    };
  }
  std::size_t stored() {
    std::lock_guard lock(mutex);
    return ids.size();
  }
};

template <typename Pred>
bool eventually(Pred pred, std::chrono::milliseconds limit = 5000ms) {
  for (auto waited = 0ms; waited < limit; waited += 10ms) {
    if (pred()) return true;
    std::this_thread::sleep_for(10ms);
  }
  return pred();
}

class UsageWriterTest : public ::testing::Test {
 protected:
  modelgw::testing::TempStorage t;
  std::string journal_path() const { return (t.dir / "usage.journal").string(); }
  std::unique_ptr<UsageJournal> journal() const { return std::make_unique<UsageJournal>(journal_path()); }
};

TEST(JournalLine, EveryFieldSurvivesTheRoundTrip) {
  UsageRow r = row(7);
  r.key_id = 3;
  r.upstream_model = "gpt-4o-mini";
  r.prompt_tokens = 11;
  r.completion_tokens = 22;
  r.total_tokens = 33;
  r.error_code = "client_disconnected";
  r.latency_us = 1234;
  r.ttft_us = 99;
  r.streamed = true;
  r.prompt_name = "greet";
  r.prompt_version = 2;
  r.pii_action = "flagged";
  r.pii_findings = R"({"email":1})";
  r.feature = "search\nnewline";
  r.cached_prompt_tokens = 4;
  r.cost_micros = 555;
  r.price_input_micros = 150000;
  r.price_output_micros = 600000;
  r.price_cached_micros = 75000;
  r.reason = "BUDGET_EXCEEDED";
  r.charges = {{12, 300}, {13, 255}};
  std::string line;
  modelgw::usage::append_journal_line(r, line);
  ASSERT_EQ(line.find('\n'), line.size() - 1) << "one record, one line";
  const auto back = modelgw::usage::parse_journal_line(std::string_view(line).substr(0, line.size() - 1));
  ASSERT_TRUE(back);
  EXPECT_EQ(back->request_id, r.request_id);
  EXPECT_EQ(back->key_id, 3);
  EXPECT_EQ(back->upstream_model, r.upstream_model);
  EXPECT_EQ(back->total_tokens, 33);
  EXPECT_EQ(back->error_code, r.error_code);
  EXPECT_EQ(back->ttft_us, 99);
  EXPECT_TRUE(back->streamed);
  EXPECT_EQ(back->prompt_version, 2);
  EXPECT_EQ(back->pii_findings, r.pii_findings);
  EXPECT_EQ(back->feature, r.feature);
  EXPECT_EQ(back->cached_prompt_tokens, 4);
  EXPECT_EQ(back->cost_micros, 555);
  EXPECT_EQ(back->price_cached_micros, 75000);
  EXPECT_EQ(back->reason, r.reason);
  ASSERT_EQ(back->charges.size(), 2u);
  EXPECT_EQ(back->charges[1].lease_id, 13);
  EXPECT_EQ(back->charges[1].amount, 255);
}

TEST(JournalLine, KeepsTheOperationAndReadsOldLinesAsChatCompletions) {
  UsageRow r = row(8);
  r.operation = "responses";
  std::string line;
  modelgw::usage::append_journal_line(r, line);
  auto back = modelgw::usage::parse_journal_line(std::string_view(line).substr(0, line.size() - 1));
  ASSERT_TRUE(back);
  EXPECT_EQ(back->operation, "responses");
  // A line journaled before operations were kept: its request came through
  // chat completions, the only API there was.
  nlohmann::json old = nlohmann::json::parse(line);
  old.erase("operation");
  back = modelgw::usage::parse_journal_line(old.dump());
  ASSERT_TRUE(back);
  EXPECT_EQ(back->request_id, r.request_id);
  EXPECT_EQ(back->operation, "chat.completions");
}

TEST(JournalLine, ATornOrForeignLineIsNoRecord) {
  std::string line;
  modelgw::usage::append_journal_line(row(1), line);
  EXPECT_FALSE(modelgw::usage::parse_journal_line(std::string_view(line).substr(0, line.size() / 2)));
  EXPECT_FALSE(modelgw::usage::parse_journal_line("{}"));
  EXPECT_FALSE(modelgw::usage::parse_journal_line("[1,2]"));
  EXPECT_FALSE(modelgw::usage::parse_journal_line(R"({"request_id":5})"));
}

TEST_F(UsageWriterTest, TheJournalKeepsWhatItAcceptedAcrossAReopenAndSkipsATornTail) {
  {
    UsageJournal j(journal_path());
    std::string why;
    ASSERT_TRUE(j.append({row(1), row(2)}, why)) << why;
    ASSERT_TRUE(j.append({row(3)}, why)) << why;
    EXPECT_EQ(j.records(), 3u);
  }
  {
    std::ofstream f(journal_path(), std::ios::app);
    f << R"({"request_id":"req_4","tena)";  // a crash in the middle of a write
  }
  UsageJournal j(journal_path());
  std::vector<std::string> seen;
  std::uint64_t replayed = 0, skipped = 0;
  std::string why;
  ASSERT_TRUE(j.replay(
      2,
      [&](const std::vector<UsageRow>& rows) {
        for (const auto& r : rows) seen.push_back(r.request_id);
        return true;
      },
      replayed, skipped, why));
  EXPECT_EQ(seen, (std::vector<std::string>{"req_1", "req_2", "req_3"}));
  EXPECT_EQ(replayed, 3u);
  EXPECT_EQ(j.records(), 0u);
  EXPECT_EQ(std::filesystem::file_size(journal_path()), 0u) << "emptied once replayed";
}

TEST_F(UsageWriterTest, AReplayRefusedHalfwayKeepsTheWholeJournal) {
  UsageJournal j(journal_path());
  std::string why;
  ASSERT_TRUE(j.append({row(1), row(2), row(3)}, why));
  int batches = 0;
  std::uint64_t replayed = 0, skipped = 0;
  EXPECT_FALSE(j.replay(
      1, [&](const std::vector<UsageRow>&) { return ++batches < 2; }, replayed, skipped, why));
  EXPECT_EQ(j.records(), 3u);
  std::vector<std::string> seen;
  ASSERT_TRUE(j.replay(
      10,
      [&](const std::vector<UsageRow>& rows) {
        for (const auto& r : rows) seen.push_back(r.request_id);
        return true;
      },
      replayed, skipped, why));
  EXPECT_EQ(seen.size(), 3u);
}

TEST_F(UsageWriterTest, ASecondProcessCannotOpenTheSameJournal) {
  UsageJournal first(journal_path());
  // flock locks are per open file description: a second open in this
  // process conflicts just as another process's would.
  EXPECT_THROW(UsageJournal second(journal_path()), std::runtime_error);
}

TEST_F(UsageWriterTest, ADiskThatRefusesWritesKeepsNothingHalfWritten) {
  UsageJournal j("/dev/full");
  std::string why;
  EXPECT_FALSE(j.append({row(1)}, why));
  EXPECT_NE(why.find("No space"), std::string::npos) << why;
  EXPECT_EQ(j.records(), 0u);
}

TEST_F(UsageWriterTest, StopFlushesEverythingQueued) {
  t.storage->create_tenant("acme", 1);
  // A flush interval far longer than the test: only stop() can write these.
  UsageWriter w(*t.storage, journal(), WriterOptions{600000, 100000, 1000000});
  w.start();
  for (int i = 0; i < 1234; ++i) w.enqueue(row(i));
  w.stop();
  EXPECT_EQ(w.written(), 1234u);
  modelgw::plugins::UsageQuery q;
  q.limit = 1000;
  EXPECT_EQ(t.storage->query_usage(q).size(), 1000u);
  q.request_id = "req_1233";
  ASSERT_EQ(t.storage->query_usage(q).size(), 1u);
}

TEST_F(UsageWriterTest, WritesInBatchesWhileRunning) {
  UsageWriter w(*t.storage, journal(), WriterOptions{20, 10, 1000});
  w.start();
  for (int i = 0; i < 25; ++i) w.enqueue(row(i));
  EXPECT_TRUE(eventually([&] { return w.written() >= 25; }));
  EXPECT_EQ(w.written(), 25u);
  w.stop();
}

// With nothing queued the writer sleeps until a record comes (no timer); a
// record that ends such a rest is written within about the interval, however
// its enqueue falls against the writer going back to sleep, one store call
// each (no empty batches, no lost wake-up).
TEST_F(UsageWriterTest, ARecordAfterARestIsWrittenWithinTheInterval) {
  FlakyStore store;
  UsageWriter w(store.fn(), journal(), WriterOptions{20, 256, 1000});
  w.start();
  for (int i = 0; i < 40; ++i) {
    w.enqueue(row(i));
    ASSERT_TRUE(eventually([&] { return w.written() >= static_cast<std::uint64_t>(i) + 1; }, 2000ms))
        << "record " << i << " waits after a rest";
    std::this_thread::sleep_for(std::chrono::milliseconds(i % 4));  // before, at and after the writer sleeps
  }
  EXPECT_EQ(store.calls.load(), 40);
  w.stop();
}

// Under steady traffic (a record every 2 ms, intervals of 20 ms) no
// interval is empty, so the writer never rests and no enqueue pays for
// waking it: only the first record, which ends the rest it started in.
TEST_F(UsageWriterTest, SteadyTrafficWakesTheWriterOnlyOnce) {
  FlakyStore store;
  UsageWriter w(store.fn(), journal(), WriterOptions{20, 256, 1000});
  w.start();
  std::this_thread::sleep_for(100ms);  // it rests: nothing came in an interval
  for (int i = 0; i < 150; ++i) {
    w.enqueue(row(i));
    std::this_thread::sleep_for(2ms);
  }
  ASSERT_TRUE(eventually([&] { return w.written() >= 150; }, 2000ms));
  // 15 or so when it rested after every batch (one wake per 20 ms); a
  // little room for a test thread that stalls past an interval.
  EXPECT_LE(w.wakeups(), 4u);
  w.stop();
}

TEST_F(UsageWriterTest, NothingIsDroppedPastTheQueueLimitAndAdmissionStopsThere) {
  FlakyStore store;
  UsageWriter w(store.fn(), journal(), WriterOptions{600000, 100000, 10});  // never started: nothing drains
  for (int i = 0; i < 9; ++i) w.enqueue(row(i));
  EXPECT_TRUE(w.recording());
  for (int i = 9; i < 15; ++i) w.enqueue(row(i));
  EXPECT_FALSE(w.recording()) << "at the limit, billable requests are refused";
  EXPECT_EQ(w.status().queued, 15u);
  w.start();
  w.stop();
  EXPECT_EQ(store.stored() + w.status().journal_records, 15u) << "every record kept";
}

TEST_F(UsageWriterTest, RefusedBatchesGoToTheJournalAndAreReplayedOnceStorageAnswers) {
  FlakyStore store;
  store.down = true;
  UsageWriter w(store.fn(), journal(), WriterOptions{5, 4, 1000});
  w.start();
  for (int i = 0; i < 20; ++i) w.enqueue(row(i));
  ASSERT_TRUE(eventually([&] { return w.status().journal_records == 20; })) << w.status().journal_records;
  EXPECT_STREQ(w.status().state, "journaling");
  EXPECT_TRUE(w.recording()) << "a journal that takes records keeps requests admitted";
  // Backoff, not a spin: a second of outage costs a handful of attempts.
  const int before = store.calls;
  std::this_thread::sleep_for(1000ms);
  EXPECT_LE(store.calls - before, 8);
  for (int i = 20; i < 30; ++i) w.enqueue(row(i));
  store.down = false;
  ASSERT_TRUE(eventually([&] { return store.stored() >= 30 && w.status().journal_records == 0; }));
  EXPECT_STREQ(w.status().state, "storing");
  w.stop();
  std::set<std::string> unique(store.ids.begin(), store.ids.end());
  EXPECT_EQ(unique.size(), 30u);
  EXPECT_EQ(store.ids.size(), 30u) << "each record stored once";
}

TEST_F(UsageWriterTest, WhenNeitherStorageNorJournalTakesARecordRequestsAreRefusedUntilOneDoes) {
  FlakyStore store;
  store.down = true;
  UsageWriter w(store.fn(), std::make_unique<UsageJournal>("/dev/full"), WriterOptions{5, 4, 1000});
  w.start();
  for (int i = 0; i < 6; ++i) w.enqueue(row(i));
  ASSERT_TRUE(eventually([&] { return !w.recording(); }));
  EXPECT_STREQ(w.status().state, "unrecordable");
  EXPECT_EQ(w.status().queued, 6u) << "held in memory, not dropped";
  store.down = false;
  ASSERT_TRUE(eventually([&] { return w.recording() && store.stored() == 6; }));
  EXPECT_STREQ(w.status().state, "storing");
  w.stop();
}

TEST_F(UsageWriterTest, StopWithStorageDownLeavesTheRecordsInTheJournalForTheNextRun) {
  FlakyStore store;
  store.down = true;
  {
    UsageWriter w(store.fn(), journal(), WriterOptions{600000, 100, 1000});
    w.start();
    for (int i = 0; i < 7; ++i) w.enqueue(row(i));
    w.stop();
  }
  store.down = false;
  UsageWriter next(store.fn(), journal(), WriterOptions{5, 100, 1000});
  EXPECT_EQ(next.status().journal_records, 7u);
  next.start();
  ASSERT_TRUE(eventually([&] { return store.stored() == 7; }));
  next.stop();
  EXPECT_EQ(next.status().journal_records, 0u);
}

TEST_F(UsageWriterTest, SqliteStoresARequestIdOnceHoweverOftenItIsReplayed) {
  t.storage->create_tenant("acme", 1);
  t.storage->insert_usage({row(1), row(2)});
  t.storage->insert_usage({row(2), row(3), row(1)});
  modelgw::plugins::UsageQuery q;
  q.limit = 100;
  EXPECT_EQ(t.storage->query_usage(q).size(), 3u);
}

}  // namespace
