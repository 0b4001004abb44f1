// API keys: create, find by hash, list, revoke; only hashes are accepted.
#include "fixture.h"

namespace storage_test {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

class ApiKeysTest : public StorageTest {
 protected:
  void SetUp() override {
    StorageTest::SetUp();
    acme_ = create_tenant(storage(), "acme");
    globex_ = create_tenant(storage(), "globex");
  }

  RowRecorder find(const std::string& hash, mgw_status expected) {
    RowRecorder rows;
    mgw::testing::TextRecorder error;
    EXPECT_EQ(h().on_api_key_find_by_hash(storage(), mgw::str(hash), &rows.sink, &error.sink), expected)
        << error.text;
    return rows;
  }

  std::vector<ApiKey> list(int64_t tenant_id) {
    RowRecorder rows;
    EXPECT_EQ(h().on_api_key_list(storage(), tenant_id, &rows.sink, nullptr), MGW_OK);
    return rows.keys;
  }

  mgw_status revoke(int64_t key_id, int64_t now) {
    return h().on_api_key_revoke(storage(), key_id, now, nullptr);
  }

  int64_t acme_ = 0;
  int64_t globex_ = 0;
};

TEST_P(ApiKeysTest, CreateThenFindByHashReturnsTheRow) {
  NewKey key{acme_, fake_hash(1), "mgw_live_ab", "chat admin", 1700000000999};
  const int64_t id = create_key(storage(), key);
  EXPECT_GT(id, 0);
  auto rows = find(fake_hash(1), MGW_OK);
  ASSERT_EQ(rows.keys.size(), 1u);
  const auto& k = rows.keys[0];
  EXPECT_EQ(k.id, id);
  EXPECT_EQ(k.tenant_id, acme_);
  EXPECT_EQ(k.tenant_name, "acme");
  EXPECT_EQ(k.key_hash, fake_hash(1));
  EXPECT_EQ(k.display_prefix, "mgw_live_ab");
  EXPECT_EQ(k.scopes, "chat admin");
  EXPECT_EQ(k.created_unix_ms, 1700000000999);
  EXPECT_EQ(k.revoked_unix_ms, 0);
}

TEST_P(ApiKeysTest, FindUnknownHashIsNotFound) {
  create_key(storage(), {acme_, fake_hash(1)});
  auto rows = find(fake_hash(2), MGW_NOT_FOUND);
  EXPECT_TRUE(rows.keys.empty());
}

TEST_P(ApiKeysTest, DuplicateHashIsConflict) {
  create_key(storage(), {acme_, fake_hash(1)});
  const NewKey key{globex_, fake_hash(1)};
  auto record = key.record();
  int64_t id = -7;
  EXPECT_EQ(h().on_api_key_create(storage(), &record, &id, nullptr), MGW_CONFLICT);
  EXPECT_EQ(id, -7);
  EXPECT_EQ(list(0).size(), 1u);
}

TEST_P(ApiKeysTest, UnknownTenantIsRefused) {
  // The error's wording is the database's (sqlite: "FOREIGN KEY", which also
  // proves foreign_keys=ON: see storage_sqlite's error_text_test.cpp).
  const NewKey key{9999, fake_hash(1)};
  auto record = key.record();
  mgw::testing::TextRecorder error;
  EXPECT_EQ(h().on_api_key_create(storage(), &record, nullptr, &error.sink), MGW_INVALID_ARGUMENT);
  EXPECT_FALSE(error.text.empty());
  EXPECT_TRUE(list(0).empty());
}

TEST_P(ApiKeysTest, OnlyHashesAreStored) {
  const std::string raw_key = "mgw_live_abcdefghijklmnopqrstuvwxyz0123456789";
  for (const std::string& not_a_hash :
       {raw_key, std::string(64, 'A'), fake_hash(1).substr(1), std::string()}) {
    const NewKey key{acme_, not_a_hash};
    auto record = key.record();
    mgw::testing::TextRecorder error;
    EXPECT_EQ(h().on_api_key_create(storage(), &record, nullptr, &error.sink), MGW_INVALID_ARGUMENT);
    EXPECT_THAT(error.text, HasSubstr("key_hash"));
    if (!not_a_hash.empty()) {
      EXPECT_THAT(error.text, Not(HasSubstr(not_a_hash))) << "never echo key material";
    }
  }
  EXPECT_TRUE(list(0).empty());
}

TEST_P(ApiKeysTest, ListFiltersByTenantOldestFirst) {
  const int64_t k1 = create_key(storage(), {acme_, fake_hash(1), "p1", "chat", 300});
  const int64_t k2 = create_key(storage(), {globex_, fake_hash(2), "p2", "chat", 100});
  const int64_t k3 = create_key(storage(), {acme_, fake_hash(3), "p3", "chat", 200});

  auto acme_keys = list(acme_);
  ASSERT_EQ(acme_keys.size(), 2u);
  EXPECT_EQ(acme_keys[0].id, k3);
  EXPECT_EQ(acme_keys[1].id, k1);
  EXPECT_EQ(acme_keys[0].tenant_name, "acme");

  auto globex_keys = list(globex_);
  ASSERT_EQ(globex_keys.size(), 1u);
  EXPECT_EQ(globex_keys[0].id, k2);
  EXPECT_EQ(globex_keys[0].tenant_name, "globex");

  auto all = list(0);
  ASSERT_EQ(all.size(), 3u);
  EXPECT_EQ(all[0].id, k2);
  EXPECT_EQ(all[1].id, k3);
  EXPECT_EQ(all[2].id, k1);
}

TEST_P(ApiKeysTest, RevokeSetsTheTimeAndFindStillReturnsTheKey) {
  const int64_t id = create_key(storage(), {acme_, fake_hash(1)});
  EXPECT_EQ(revoke(id, 5000), MGW_OK);
  auto rows = find(fake_hash(1), MGW_OK);
  ASSERT_EQ(rows.keys.size(), 1u);
  EXPECT_EQ(rows.keys[0].revoked_unix_ms, 5000);
}

TEST_P(ApiKeysTest, RevokingTwiceKeepsTheFirstTime) {
  const int64_t id = create_key(storage(), {acme_, fake_hash(1)});
  create_key(storage(), {acme_, fake_hash(2)});
  EXPECT_EQ(revoke(id, 5000), MGW_OK);
  EXPECT_EQ(revoke(id, 9000), MGW_OK);
  EXPECT_EQ(find(fake_hash(1), MGW_OK).keys.at(0).revoked_unix_ms, 5000);
  EXPECT_EQ(find(fake_hash(2), MGW_OK).keys.at(0).revoked_unix_ms, 0) << "other keys untouched";
}

TEST_P(ApiKeysTest, RevokeUnknownIsNotFound) {
  create_key(storage(), {acme_, fake_hash(1)});
  EXPECT_EQ(revoke(424242, 5000), MGW_NOT_FOUND);
  EXPECT_EQ(find(fake_hash(1), MGW_OK).keys.at(0).revoked_unix_ms, 0);
}

TEST_P(ApiKeysTest, RevokeNeedsAPositiveTime) {
  const int64_t id = create_key(storage(), {acme_, fake_hash(1)});
  EXPECT_EQ(revoke(id, 0), MGW_INVALID_ARGUMENT);
  EXPECT_EQ(find(fake_hash(1), MGW_OK).keys.at(0).revoked_unix_ms, 0);
}

INSTANTIATE_TEST_SUITE_P(Backends, ApiKeysTest, MGW_STORAGE_BACKENDS);

}  // namespace
}  // namespace storage_test
