#include "auth/jwt/keyset_cache.h"
#include "auth/jwt/validator.h"
#include "fake_source.h"
#include "test_keys.h"

#include <gtest/gtest.h>

#include <thread>
#include <vector>

namespace {

using modelgw::auth::jwt::Keyset;
using modelgw::auth::jwt::KeysetCache;
using modelgw::auth::jwt::KeysetCacheOptions;
using modelgw::auth::jwt::KeysetUnavailable;
using modelgw::auth::jwt::Validator;
using modelgw::auth::jwt::ValidatorOptions;
using modelgw::auth::jwt::VerifiedToken;
using modelgw::errors::ApiError;
using namespace std::chrono_literals;
namespace t = modelgw::testing::jwt;

std::string keyset_a() {
  return t::jwks({t::public_jwk(t::rsa_key())});
}
std::string keyset_ab() {
  return t::jwks({t::public_jwk(t::rsa_key()), t::public_jwk(t::ec256_key())});
}

bool has_keys(const KeysetCache::Result& r) {
  return std::holds_alternative<std::shared_ptr<const Keyset>>(r);
}

std::size_t key_count(const KeysetCache::Result& r) {
  return has_keys(r) ? std::get<std::shared_ptr<const Keyset>>(r)->keys.size() : 0;
}

class KeysetCacheTest : public ::testing::Test {
 protected:
  KeysetCache& cache() {
    if (!cache_) {
      cache_ = std::make_shared<KeysetCache>(std::make_unique<t::ScriptedSource>(script), options,
                                             clock.function());
    }
    return *cache_;
  }
  Validator& validator() {
    if (!validator_) {
      ValidatorOptions v;
      v.issuer = "https://idp.example";
      v.audience = "modelgw";
      cache();
      validator_ = std::make_unique<Validator>(v, cache_, [] { return t::wall_time(t::kNow); });
    }
    return *validator_;
  }
  // "ok", or the error's code.
  std::string outcome(const t::KeyPair& key, const std::string& alg) {
    auto r = validator().validate(t::make_token(key, alg, t::good_claims()));
    return std::holds_alternative<VerifiedToken>(r) ? "ok" : std::get<ApiError>(r).code;
  }
  std::string message(const t::KeyPair& key, const std::string& alg) {
    auto r = validator().validate(t::make_token(key, alg, t::good_claims()));
    return std::holds_alternative<VerifiedToken>(r) ? "ok" : std::get<ApiError>(r).message;
  }

  std::shared_ptr<t::Script> script = std::make_shared<t::Script>();
  t::ManualClock clock;
  KeysetCacheOptions options = t::cache_options();

 private:
  std::shared_ptr<KeysetCache> cache_;
  std::unique_ptr<Validator> validator_;
};

TEST_F(KeysetCacheTest, HonoursMaxAge) {
  script->answer(t::document(keyset_a(), 60s));
  EXPECT_TRUE(has_keys(cache().current()));
  clock.advance(59s);
  EXPECT_TRUE(has_keys(cache().current()));
  EXPECT_EQ(script->calls, 1);
  clock.advance(2s);
  EXPECT_TRUE(has_keys(cache().current()));
  EXPECT_EQ(script->calls, 2);
}

TEST_F(KeysetCacheTest, BoundsMaxAgeByMaxTtl) {
  options.max_ttl = 1000ms;
  script->answer(t::document(keyset_a(), 86400s));
  EXPECT_TRUE(has_keys(cache().current()));
  clock.advance(999ms);
  EXPECT_TRUE(has_keys(cache().current()));
  EXPECT_EQ(script->calls, 1);
  clock.advance(2ms);
  EXPECT_TRUE(has_keys(cache().current()));
  EXPECT_EQ(script->calls, 2);
}

TEST_F(KeysetCacheTest, UsesTheDefaultTtlWithoutMaxAge) {
  options.default_ttl = 5000ms;
  script->answer(t::document(keyset_a()));
  cache().current();
  clock.advance(4999ms);
  cache().current();
  EXPECT_EQ(script->calls, 1);
  clock.advance(1ms);
  cache().current();
  EXPECT_EQ(script->calls, 2);
}

TEST_F(KeysetCacheTest, MaxAgeZeroServesOnlyTheValidationThatFetched) {
  script->answer(t::document(keyset_a(), 0s));
  EXPECT_EQ(outcome(t::rsa_key(), "RS256"), "ok");
  EXPECT_EQ(outcome(t::rsa_key(), "RS256"), "ok");
  EXPECT_EQ(script->calls, 2);
}

TEST_F(KeysetCacheTest, NeverUsesExpiredKeysAndAnswers503WhenTheSourceFails) {
  script->answer(t::document(keyset_a(), 60s));
  EXPECT_EQ(outcome(t::rsa_key(), "RS256"), "ok");
  script->answer(t::failure("HTTP 502"));
  clock.advance(61s);
  EXPECT_EQ(outcome(t::rsa_key(), "RS256"), "jwks_unavailable");
  EXPECT_EQ(script->calls, 2);
}

TEST_F(KeysetCacheTest, AFailedFetchIsNotRetriedWithinTheInterval) {
  script->answer(t::failure());
  auto first = cache().current();
  ASSERT_FALSE(has_keys(first));
  EXPECT_EQ(std::get<KeysetUnavailable>(first).retry_after, 10s);
  clock.advance(4s);
  auto second = cache().current();
  ASSERT_FALSE(has_keys(second));
  EXPECT_EQ(std::get<KeysetUnavailable>(second).retry_after, 6s);
  EXPECT_EQ(outcome(t::rsa_key(), "RS256"), "jwks_unavailable");
  EXPECT_EQ(script->calls, 1);
  clock.advance(6s);
  EXPECT_FALSE(has_keys(cache().current()));
  EXPECT_EQ(script->calls, 2);
}

TEST_F(KeysetCacheTest, RecoversWhenTheProviderComesBack) {
  script->answer(t::failure());
  EXPECT_FALSE(cache().prefetch());
  EXPECT_EQ(outcome(t::rsa_key(), "RS256"), "jwks_unavailable");
  script->answer(t::document(keyset_a()));
  clock.advance(10s);
  EXPECT_EQ(outcome(t::rsa_key(), "RS256"), "ok");
  EXPECT_EQ(script->calls, 2);
}

TEST_F(KeysetCacheTest, AnUnparsableDocumentIsAFailedFetchThatKeepsUnexpiredKeys) {
  script->answer(t::document(keyset_a(), 60s));
  EXPECT_EQ(outcome(t::rsa_key(), "RS256"), "ok");
  script->answer(t::document("<html>maintenance</html>"));
  clock.advance(11s);
  // An unknown kid asks for a refresh, which fails: the kid might exist.
  EXPECT_EQ(outcome(t::ec256_key(), "ES256"), "jwks_unavailable");
  // Known kids still validate with the unexpired keys.
  EXPECT_EQ(outcome(t::rsa_key(), "RS256"), "ok");
  EXPECT_EQ(script->calls, 2);
}

TEST_F(KeysetCacheTest, AnUnknownKidRefreshesAtMostOncePerInterval) {
  script->answer(t::document(keyset_a()));
  EXPECT_EQ(outcome(t::rsa_key(), "RS256"), "ok");
  clock.advance(10s);
  script->answer(t::document(keyset_ab()));
  EXPECT_EQ(outcome(t::ec256_key(), "ES256"), "ok");  // refreshed for the new kid
  EXPECT_EQ(script->calls, 2);

  // A flood of forged kids within the interval: 401 each, no fetch.
  t::KeyPair forged{t::rsa_key().key, "forged", "RSA", ""};
  for (int i = 0; i < 20; ++i) EXPECT_EQ(outcome(forged, "RS256"), "invalid_api_key");
  EXPECT_EQ(script->calls, 2);
  EXPECT_EQ(message(forged, "RS256"),
            "the token's signing key (kid 'forged') is not in the identity provider's keyset");
  clock.advance(10s);
  EXPECT_EQ(outcome(forged, "RS256"), "invalid_api_key");
  EXPECT_EQ(script->calls, 3);  // one refresh per interval
  EXPECT_EQ(outcome(t::ec256_key(), "ES256"), "ok");
}

TEST_F(KeysetCacheTest, AFailedUnknownKidRefreshAnswers503) {
  script->answer(t::document(keyset_a()));
  EXPECT_EQ(outcome(t::rsa_key(), "RS256"), "ok");
  clock.advance(10s);
  script->answer(t::failure());
  EXPECT_EQ(outcome(t::ec256_key(), "ES256"), "jwks_unavailable");
  EXPECT_EQ(outcome(t::rsa_key(), "RS256"), "ok");
  EXPECT_EQ(script->calls, 2);
}

TEST_F(KeysetCacheTest, ConcurrentCallersShareOneFetch) {
  script->answer(t::document(keyset_a()));
  script->set_hold(true);
  constexpr int kThreads = 8;
  validator();  // built before the threads share it
  std::atomic<int> ok{0};
  std::vector<std::thread> threads;
  for (int i = 0; i < kThreads; ++i) {
    threads.emplace_back([&] {
      if (outcome(t::rsa_key(), "RS256") == "ok") ++ok;
    });
  }
  ASSERT_TRUE(script->wait_in_fetch(5s));
  std::this_thread::sleep_for(50ms);  // let the others reach the wait
  script->set_hold(false);
  for (auto& th : threads) th.join();
  EXPECT_EQ(ok, kThreads);
  EXPECT_EQ(script->calls, 1);
}

TEST_F(KeysetCacheTest, WaitersGiveUpAfterMaxWait) {
  options.max_wait = 50ms;
  script->answer(t::document(keyset_a()));
  script->set_hold(true);
  std::thread fetcher([&] { cache().current(); });
  ASSERT_TRUE(script->wait_in_fetch(5s));
  const auto start = std::chrono::steady_clock::now();
  EXPECT_FALSE(has_keys(cache().current()));
  EXPECT_LT(std::chrono::steady_clock::now() - start, 2s);
  script->set_hold(false);
  fetcher.join();
  EXPECT_EQ(key_count(cache().current()), 1u);
  EXPECT_EQ(script->calls, 1);
}

}  // namespace
