// ABI 1.3 in every store: an idempotency key is claimed by exactly one
// of many concurrent claimers (across handles, as across processes), a live
// row is handed back unchanged, complete and release touch only the owner's
// pending row, an expired row counts as free, and purge removes only expired
// rows, in bounded batches.
#include "fixture.h"

#include <atomic>
#include <list>
#include <thread>

namespace storage_test {
namespace {

struct Rows {
  std::vector<mgw_idempotency_record> rows;
  std::vector<std::string> responses, digests, owners;
  mgw_row_sink sink{};
  Rows() {
    sink.struct_size = sizeof sink;
    sink.host_data = this;
    sink.callback_idempotency = [](void* self, const mgw_idempotency_record* r) {
      auto* me = static_cast<Rows*>(self);
      me->rows.push_back(*r);
      me->responses.emplace_back(mgw::view(r->response));
      me->digests.emplace_back(mgw::view(r->digest));
      me->owners.emplace_back(mgw::view(r->owner));
    };
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

INSTANTIATE_TEST_SUITE_P(Backends, IdempotencyStoreTest, MGW_STORAGE_BACKENDS);

}  // namespace
}  // namespace storage_test
