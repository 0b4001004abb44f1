// ABI 1.3 in every store: an idempotency key is claimed by exactly one
// of many concurrent claimers (across handles, as across processes), a live
// row is handed back unchanged, complete and release touch only the owner's
// pending row, an expired row counts as free, and purge removes only expired
// rows, in bounded batches.
#include "fixture.h"

#include <algorithm>
#include <atomic>
#include <list>
#include <map>
#include <thread>

namespace storage_test {
namespace {

struct Rows {
  std::vector<mgw_idempotency_record> rows;
  std::vector<std::string> responses, digests, owners;
  std::vector<std::size_t> indexes;  // ABI 1.12: callback_idempotency_at's
  mgw_row_sink sink{};
  Rows() {
    sink.struct_size = sizeof sink;
    sink.host_data = this;
    sink.callback_idempotency = [](void* self, const mgw_idempotency_record* r) {
      static_cast<Rows*>(self)->take(*r);
    };
    sink.callback_idempotency_at = [](void* self, std::size_t index, const mgw_idempotency_record* r) {
      auto* me = static_cast<Rows*>(self);
      me->indexes.push_back(index);
      me->take(*r);
    };
  }
  void take(const mgw_idempotency_record& r) {
    rows.push_back(r);
    responses.emplace_back(mgw::view(r.response));
    digests.emplace_back(mgw::view(r.digest));
    owners.emplace_back(mgw::view(r.owner));
  }
};

class IdempotencyStoreTest : public StorageTest {
 protected:
  mgw_idempotency_record record(const std::string& key, const std::string& digest, const std::string& owner,
                                std::int64_t expires, std::int64_t tenant = 1) {
    keep_.push_back(key);
    keep_.push_back(digest);
    keep_.push_back(owner);
    mgw_idempotency_record r{};
    r.struct_size = sizeof r;
    r.tenant_id = tenant;
    r.key = mgw::str(*std::prev(keep_.end(), 3));
    r.digest = mgw::str(*std::prev(keep_.end(), 2));
    r.owner = mgw::str(keep_.back());
    r.state = MGW_IDEMPOTENCY_PENDING;
    r.created_unix_ms = 1000;
    r.expires_unix_ms = expires;
    return r;
  }
  mgw_status claim(mgw_storage* s, const mgw_idempotency_record& r, std::int64_t now, Rows* out = nullptr) {
    return h().on_idempotency_claim(s, &r, now, out ? &out->sink : nullptr, nullptr);
  }

  std::list<std::string> keep_;
};

TEST_P(IdempotencyStoreTest, AClaimedKeyIsHandedBackUnchangedUntilCompletedThenWithItsResponse) {
  auto first = record("k1", "digest-a", "req_1", 5000);
  ASSERT_EQ(claim(storage(), first, 2000), MGW_OK);
  Rows held;
  ASSERT_EQ(claim(storage(), record("k1", "digest-b", "req_2", 9000), 2100, &held), MGW_CONFLICT);
  ASSERT_EQ(held.rows.size(), 1u);
  EXPECT_EQ(held.rows[0].state, MGW_IDEMPOTENCY_PENDING);
  EXPECT_EQ(held.digests[0], "digest-a");
  EXPECT_EQ(held.owners[0], "req_1");
  EXPECT_EQ(held.rows[0].expires_unix_ms, 5000);

  // Only the owner completes it.
  auto done = record("k1", "digest-a", "req_2", 90000);
  const std::string response = "{\"status\":200}";
  done.response = mgw::str(response);
  EXPECT_EQ(h().on_idempotency_complete(storage(), &done, nullptr), MGW_NOT_FOUND);
  done = record("k1", "digest-a", "req_1", 90000);
  done.response = mgw::str(response);
  ASSERT_EQ(h().on_idempotency_complete(storage(), &done, nullptr), MGW_OK);
  EXPECT_EQ(h().on_idempotency_complete(storage(), &done, nullptr), MGW_NOT_FOUND) << "done already";

  Rows again;
  ASSERT_EQ(claim(storage(), record("k1", "digest-a", "req_3", 9000), 50000, &again), MGW_CONFLICT);
  ASSERT_EQ(again.rows.size(), 1u);
  EXPECT_EQ(again.rows[0].state, MGW_IDEMPOTENCY_DONE);
  EXPECT_EQ(again.responses[0], response);
  EXPECT_EQ(again.rows[0].expires_unix_ms, 90000);
  // Release does not free a completed key.
  ASSERT_EQ(h().on_idempotency_release(storage(), 1, mgw::str("k1"), mgw::str("req_1"), nullptr), MGW_OK);
  EXPECT_EQ(claim(storage(), record("k1", "digest-a", "req_3", 9000), 50000), MGW_CONFLICT);
}

TEST_P(IdempotencyStoreTest, KeysArePerTenantAndExpiredOrReleasedKeysAreFree) {
  ASSERT_EQ(claim(storage(), record("shared", "d", "req_1", 5000, 1), 2000), MGW_OK);
  EXPECT_EQ(claim(storage(), record("shared", "d", "req_2", 5000, 2), 2000), MGW_OK) << "another tenant";
  // Released by someone else: nothing happens; by its owner: free.
  ASSERT_EQ(h().on_idempotency_release(storage(), 1, mgw::str("shared"), mgw::str("req_9"), nullptr), MGW_OK);
  EXPECT_EQ(claim(storage(), record("shared", "d", "req_3", 5000, 1), 2000), MGW_CONFLICT);
  ASSERT_EQ(h().on_idempotency_release(storage(), 1, mgw::str("shared"), mgw::str("req_1"), nullptr), MGW_OK);
  EXPECT_EQ(claim(storage(), record("shared", "d", "req_3", 5000, 1), 2000), MGW_OK);
  // A lapsed claim is taken over, and the old owner can no longer complete it.
  EXPECT_EQ(claim(storage(), record("shared", "other", "req_4", 9000, 2), 5000), MGW_OK);
  auto late = record("shared", "d", "req_2", 90000, 2);
  EXPECT_EQ(h().on_idempotency_complete(storage(), &late, nullptr), MGW_NOT_FOUND);
}

TEST_P(IdempotencyStoreTest, OfManyConcurrentClaimersAcrossHandlesExactlyOneWins) {
  auto second = open();
  std::atomic<int> won{0}, lost{0}, failed{0};
  std::vector<std::thread> threads;
  for (int i = 0; i < 16; ++i) {
    threads.emplace_back([&, i] {
      mgw_storage* s = i % 2 == 0 ? storage() : second->get();
      const std::string owner = "req_" + std::to_string(i);
      mgw_idempotency_record r{};
      r.struct_size = sizeof r;
      r.tenant_id = 7;
      r.key = mgw::str("race");
      r.digest = mgw::str("d");
      r.owner = mgw::str(owner);
      r.expires_unix_ms = 10'000;
      Rows out;
      const mgw_status st = h().on_idempotency_claim(s, &r, 1000, &out.sink, nullptr);
      (st == MGW_OK ? won : st == MGW_CONFLICT && out.rows.size() == 1 ? lost : failed)++;
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(won.load(), 1);
  EXPECT_EQ(lost.load(), 15);
  EXPECT_EQ(failed.load(), 0);
}

TEST_P(IdempotencyStoreTest, TheResponseIsKeptAsOpaqueBytes) {
  // The host alone reads a stored response: NUL and bytes that are not UTF-8
  // come back exactly, and so does a long one.
  std::string response("\0\x01\xff\xfe{\"a\":1}\r\n\0", 14);
  response += std::string(200'000, 'x');
  ASSERT_EQ(claim(storage(), record("bin", "d", "req_1", 5000), 2000), MGW_OK);
  auto done = record("bin", "d", "req_1", 90000);
  done.response = mgw::str(response);
  ASSERT_EQ(h().on_idempotency_complete(storage(), &done, nullptr), MGW_OK);
  Rows held;
  ASSERT_EQ(claim(storage(), record("bin", "d", "req_2", 9000), 3000, &held), MGW_CONFLICT);
  ASSERT_EQ(held.responses.size(), 1u);
  EXPECT_EQ(held.responses[0].size(), response.size());
  EXPECT_TRUE(held.responses[0] == response) << "the stored bytes differ";
}

TEST_P(IdempotencyStoreTest, PurgeRemovesOnlyExpiredRowsInBoundedBatches) {
  for (int i = 0; i < 5; ++i)
    ASSERT_EQ(claim(storage(), record("old" + std::to_string(i), "d", "r", 100), 50), MGW_OK);
  ASSERT_EQ(claim(storage(), record("live", "d", "r", 10'000), 50), MGW_OK);
  std::int64_t removed = -1;
  ASSERT_EQ(h().on_idempotency_purge(storage(), 5000, 3, &removed, nullptr), MGW_OK);
  EXPECT_EQ(removed, 3);
  ASSERT_EQ(h().on_idempotency_purge(storage(), 5000, 3, &removed, nullptr), MGW_OK);
  EXPECT_EQ(removed, 2);
  ASSERT_EQ(h().on_idempotency_purge(storage(), 5000, 3, &removed, nullptr), MGW_OK);
  EXPECT_EQ(removed, 0);
  EXPECT_EQ(claim(storage(), record("live", "d", "r2", 10'000), 5000), MGW_CONFLICT);
  EXPECT_EQ(h().on_idempotency_purge(storage(), 5000, 0, &removed, nullptr), MGW_INVALID_ARGUMENT);
}

TEST_P(IdempotencyStoreTest, BadArgumentsAreRefused) {
  EXPECT_EQ(h().on_idempotency_claim(storage(), nullptr, 1, nullptr, nullptr), MGW_INVALID_ARGUMENT);
  EXPECT_EQ(claim(storage(), record("", "d", "r", 100), 50), MGW_INVALID_ARGUMENT);
  EXPECT_EQ(claim(storage(), record(std::string(256, 'k'), "d", "r", 100), 50), MGW_INVALID_ARGUMENT);
  EXPECT_EQ(claim(storage(), record("k", "d", "", 100), 50), MGW_INVALID_ARGUMENT);
  mgw_idempotency_record r = record("k", "d", "r", 100);
  r.key = mgw_str{nullptr, 3};
  EXPECT_EQ(claim(storage(), r, 50), MGW_INVALID_ARGUMENT);
}

// ABI 1.12: the batch hooks give the single calls' outcomes, row by row, in
// one transaction.
TEST_P(IdempotencyStoreTest, AClaimBatchClaimsNewKeysAndHandsBackHeldRowsByIndex) {
  ASSERT_EQ(claim(storage(), record("pending", "digest-p", "req_p", 5000), 2000), MGW_OK);
  ASSERT_EQ(claim(storage(), record("done", "digest-d", "req_d", 5000), 2000), MGW_OK);
  auto complete = record("done", "digest-d", "req_d", 90000);
  const std::string response = "{\"status\":200}";
  complete.response = mgw::str(response);
  ASSERT_EQ(h().on_idempotency_complete(storage(), &complete, nullptr), MGW_OK);
  ASSERT_EQ(claim(storage(), record("lapsed", "digest-l", "req_l", 2500), 2000), MGW_OK);

  const std::vector<mgw_idempotency_record> batch = {
      record("new", "digest-n", "req_1", 9000),    record("pending", "digest-x", "req_2", 9000),
      record("done", "digest-d", "req_3", 9000),   record("new", "digest-n", "req_4", 9000),
      record("lapsed", "digest-y", "req_5", 9000), record("", "d", "req_6", 9000)};
  std::vector<mgw_status> st(batch.size(), MGW_INTERNAL);
  Rows held;
  mgw::testing::TextRecorder error;
  ASSERT_EQ(h().on_idempotency_claim_batch(storage(), batch.data(), batch.size(), 3000, st.data(), &held.sink,
                                           &error.sink),
            MGW_OK)
      << error.text;
  EXPECT_EQ(st[0], MGW_OK) << "a new key is claimed";
  EXPECT_EQ(st[1], MGW_CONFLICT) << "a pending key is held";
  EXPECT_EQ(st[2], MGW_CONFLICT) << "a done key is held";
  EXPECT_EQ(st[3], MGW_CONFLICT) << "the second of a key twice sees the first's claim";
  EXPECT_EQ(st[4], MGW_OK) << "an expired key is free";
  EXPECT_EQ(st[5], MGW_INVALID_ARGUMENT) << "a refused row fails alone";
  ASSERT_EQ(held.indexes.size(), 3u);
  std::map<std::size_t, std::size_t> at;  // batch index -> position in `held`
  for (std::size_t i = 0; i < held.indexes.size(); ++i) at[held.indexes[i]] = i;
  ASSERT_EQ(at.count(1) + at.count(2) + at.count(3), 3u);
  EXPECT_EQ(held.owners[at[1]], "req_p");
  EXPECT_EQ(held.digests[at[1]], "digest-p");
  EXPECT_EQ(held.rows[at[1]].state, MGW_IDEMPOTENCY_PENDING);
  EXPECT_EQ(held.rows[at[1]].expires_unix_ms, 5000);
  EXPECT_EQ(held.owners[at[2]], "req_d");
  EXPECT_EQ(held.rows[at[2]].state, MGW_IDEMPOTENCY_DONE);
  EXPECT_EQ(held.responses[at[2]], response);
  EXPECT_EQ(held.owners[at[3]], "req_1");
  EXPECT_EQ(held.rows[at[3]].state, MGW_IDEMPOTENCY_PENDING);

  // What the batch claimed is stored as one claim stores it.
  Rows again;
  ASSERT_EQ(claim(storage(), record("new", "digest-n", "req_7", 9000), 3000, &again), MGW_CONFLICT);
  EXPECT_EQ(again.owners[0], "req_1");
  ASSERT_EQ(claim(storage(), record("lapsed", "digest-l", "req_8", 9000), 3000, &again), MGW_CONFLICT);
  EXPECT_EQ(again.owners[1], "req_5");
}

TEST_P(IdempotencyStoreTest, AFinishBatchCompletesAndReleasesOnlyTheOwnersClaims) {
  for (const char* key : {"keep", "free", "theirs"})
    ASSERT_EQ(claim(storage(), record(key, "d", std::string("req_") + key, 5000), 2000), MGW_OK);
  const std::string response("{\"a\":\"\0\"}", 9);
  auto keep = record("keep", "d", "req_keep", 90000);
  keep.state = MGW_IDEMPOTENCY_DONE;
  keep.response = mgw::str(response);
  auto free = record("free", "", "req_free", 0);
  free.state = MGW_IDEMPOTENCY_FREE;
  auto not_mine = record("theirs", "d", "req_other", 90000);
  not_mine.state = MGW_IDEMPOTENCY_DONE;
  auto not_mine_free = record("theirs", "d", "req_other", 0);
  not_mine_free.state = MGW_IDEMPOTENCY_FREE;
  auto bad_state = record("keep", "d", "req_keep", 0);
  bad_state.state = MGW_IDEMPOTENCY_PENDING;
  const std::vector<mgw_idempotency_record> batch = {keep, free, not_mine, not_mine_free, bad_state};
  std::vector<mgw_status> st(batch.size(), MGW_INTERNAL);
  mgw::testing::TextRecorder error;
  ASSERT_EQ(h().on_idempotency_finish_batch(storage(), batch.data(), batch.size(), st.data(), &error.sink),
            MGW_OK)
      << error.text;
  EXPECT_EQ(st[0], MGW_OK);
  EXPECT_EQ(st[1], MGW_OK);
  EXPECT_EQ(st[2], MGW_NOT_FOUND) << "only the owner completes";
  EXPECT_EQ(st[3], MGW_OK) << "a release of no such claim is OK";
  EXPECT_EQ(st[4], MGW_INVALID_ARGUMENT);

  Rows held;
  ASSERT_EQ(claim(storage(), record("keep", "d", "req_9", 9000), 3000, &held), MGW_CONFLICT);
  EXPECT_EQ(held.rows[0].state, MGW_IDEMPOTENCY_DONE);
  EXPECT_EQ(held.responses[0], response);
  EXPECT_EQ(held.rows[0].expires_unix_ms, 90000);
  EXPECT_EQ(claim(storage(), record("free", "d", "req_9", 9000), 3000), MGW_OK) << "released";
  ASSERT_EQ(claim(storage(), record("theirs", "d", "req_9", 9000), 3000, &held), MGW_CONFLICT) << "untouched";
  EXPECT_EQ(held.owners[1], "req_theirs");
}

TEST_P(IdempotencyStoreTest, ConcurrentClaimBatchesAcrossHandlesEachKeyWonOnce) {
  auto second = open();
  std::atomic<int> won{0}, lost{0}, failed{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&, t] {
      mgw_storage* s = t % 2 == 0 ? storage() : second->get();
      // The same keys in opposite orders: no batch may deadlock another.
      std::vector<std::string> keys, owners;
      for (int k = 0; k < 10; ++k) {
        keys.push_back("race" + std::to_string(t % 2 == 0 ? k : 9 - k));
        owners.push_back("req_" + std::to_string(t) + "_" + std::to_string(k));
      }
      std::vector<mgw_idempotency_record> batch;
      for (std::size_t k = 0; k < keys.size(); ++k) {
        mgw_idempotency_record r{};
        r.struct_size = sizeof r;
        r.tenant_id = 7;
        r.key = mgw::str(keys[k]);
        r.digest = mgw::str("d");
        r.owner = mgw::str(owners[k]);
        r.expires_unix_ms = 10'000;
        batch.push_back(r);
      }
      std::vector<mgw_status> st(batch.size(), MGW_INTERNAL);
      Rows out;
      if (h().on_idempotency_claim_batch(s, batch.data(), batch.size(), 1000, st.data(), &out.sink,
                                         nullptr) != MGW_OK) {
        failed += 10;
        return;
      }
      for (auto x : st) (x == MGW_OK ? won : x == MGW_CONFLICT ? lost : failed)++;
      if (out.rows.size() != static_cast<std::size_t>(std::count(st.begin(), st.end(), MGW_CONFLICT)))
        failed++;
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(won.load(), 10) << "each key claimed once";
  EXPECT_EQ(lost.load(), 70);
  EXPECT_EQ(failed.load(), 0);
}

TEST_P(IdempotencyStoreTest, BatchArgumentsTheCallCannotUseAreRefused) {
  const std::vector<mgw_idempotency_record> batch = {record("k", "d", "r", 100)};
  std::vector<mgw_status> st(1, MGW_INTERNAL);
  EXPECT_EQ(h().on_idempotency_claim_batch(storage(), nullptr, 1, 50, st.data(), nullptr, nullptr),
            MGW_INVALID_ARGUMENT);
  EXPECT_EQ(h().on_idempotency_claim_batch(storage(), batch.data(), 1, 50, nullptr, nullptr, nullptr),
            MGW_INVALID_ARGUMENT);
  EXPECT_EQ(h().on_idempotency_finish_batch(storage(), batch.data(), 1, nullptr, nullptr),
            MGW_INVALID_ARGUMENT);
  auto small = batch;
  small[0].struct_size = 8;
  EXPECT_EQ(h().on_idempotency_claim_batch(storage(), small.data(), 1, 50, st.data(), nullptr, nullptr),
            MGW_INVALID_ARGUMENT);
  EXPECT_EQ(h().on_idempotency_claim_batch(storage(), batch.data(), 0, 50, st.data(), nullptr, nullptr),
            MGW_OK);
  // Nothing was claimed by the refused calls.
  EXPECT_EQ(claim(storage(), record("k", "d", "r2", 100), 50), MGW_OK);
}

INSTANTIATE_TEST_SUITE_P(Backends, IdempotencyStoreTest, MGW_STORAGE_BACKENDS);

}  // namespace
}  // namespace storage_test
