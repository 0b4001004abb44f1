// ConnectionPool: the cap on open connections, waiting for a free one, reuse
// of released connections and discarding broken ones.
#include "upstream/connection_pool.h"

#include "test_http_server.h"

#include <Poco/Net/HTTPRequest.h>
#include <Poco/Net/HTTPResponse.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <future>
#include <memory>
#include <string>
#include <thread>
#include <vector>

namespace {

using modelgw::testing::answer;
using modelgw::testing::ServerState;
using modelgw::testing::TestHttpServer;
using modelgw::upstream::ConnectionPool;
using modelgw::upstream::PoolOptions;
using modelgw::upstream::UpstreamUrl;
using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;
using Session = std::unique_ptr<Poco::Net::HTTPClientSession>;

UpstreamUrl local(std::uint16_t port) {
  UpstreamUrl u;
  u.https = false;
  u.host = "127.0.0.1";
  u.port = port;
  u.base_path = "";
  return u;
}

PoolOptions options(int max_connections, int connect_timeout_ms = 1000) {
  PoolOptions o;
  o.max_connections = max_connections;
  o.connect_timeout_ms = connect_timeout_ms;
  return o;
}

Session acquire(ConnectionPool& pool, milliseconds wait, bool& reused) {
  return pool.acquire(reused, Clock::now() + wait);
}

Session acquire(ConnectionPool& pool, milliseconds wait) {
  bool reused = false;
  return acquire(pool, wait, reused);
}

// One GET over `session`, its body read to the end so the connection can serve again.
std::string get(Poco::Net::HTTPClientSession& session, const std::string& path) {
  Poco::Net::HTTPRequest req(Poco::Net::HTTPRequest::HTTP_GET, path, Poco::Net::HTTPMessage::HTTP_1_1);
  req.setKeepAlive(true);
  session.sendRequest(req);
  Poco::Net::HTTPResponse resp;
  std::istream& in = session.receiveResponse(resp);
  std::string body((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  return body;
}

long long ms_since(Clock::time_point start) {
  return std::chrono::duration_cast<milliseconds>(Clock::now() - start).count();
}

TEST(ConnectionPool, ReportsItsSettings) {
  ConnectionPool pool(local(9), options(7, 1234));
  EXPECT_EQ(pool.max_connections(), 7);
  EXPECT_EQ(pool.connect_timeout(), milliseconds(1234));
  EXPECT_EQ(pool.url().host, "127.0.0.1");
  EXPECT_EQ(pool.url().port, 9);
  EXPECT_EQ(pool.open_connections(), 0);
}

TEST(ConnectionPool, HandsOutUpToMaxConnectionsThenNullAtTheDeadline) {
  ConnectionPool pool(local(9), options(3));
  std::vector<Session> held;
  for (int i = 0; i < 3; ++i) {
    bool reused = true;
    held.push_back(acquire(pool, milliseconds(0), reused));
    ASSERT_NE(held.back(), nullptr);
    EXPECT_FALSE(reused);
    EXPECT_EQ(pool.open_connections(), i + 1);
  }
  const auto start = Clock::now();
  EXPECT_EQ(acquire(pool, milliseconds(40)), nullptr);
  const auto waited = ms_since(start);
  EXPECT_GE(waited, 35);
  EXPECT_LT(waited, 900);
  EXPECT_EQ(pool.open_connections(), 3);
  // A deadline already passed does not wait at all.
  const auto again = Clock::now();
  bool reused = false;
  EXPECT_EQ(pool.acquire(reused, Clock::now() - milliseconds(5)), nullptr);
  EXPECT_LT(ms_since(again), 200);
  for (auto& s : held) pool.discard(std::move(s));
  EXPECT_EQ(pool.open_connections(), 0);
}

TEST(ConnectionPool, DiscardFreesTheSlot) {
  ConnectionPool pool(local(9), options(1));
  Session s = acquire(pool, milliseconds(0));
  ASSERT_NE(s, nullptr);
  EXPECT_EQ(pool.open_connections(), 1);
  pool.discard(std::move(s));
  EXPECT_EQ(pool.open_connections(), 0);
  Session t = acquire(pool, milliseconds(0));
  EXPECT_NE(t, nullptr);
  pool.discard(std::move(t));
}

TEST(ConnectionPool, ReleasingAnUnconnectedSessionDiscardsIt) {
  ConnectionPool pool(local(9), options(1));
  Session s = acquire(pool, milliseconds(0));
  ASSERT_NE(s, nullptr);
  ASSERT_FALSE(s->connected());
  pool.release(std::move(s));
  EXPECT_EQ(pool.open_connections(), 0);
  bool reused = true;
  Session t = acquire(pool, milliseconds(0), reused);
  ASSERT_NE(t, nullptr);
  EXPECT_FALSE(reused);
  pool.discard(std::move(t));
}

TEST(ConnectionPool, NullSessionsAreIgnored) {
  ConnectionPool pool(local(9), options(1));
  Session s = acquire(pool, milliseconds(0));
  pool.release(nullptr);
  pool.discard(nullptr);
  EXPECT_EQ(pool.open_connections(), 1);
  pool.discard(std::move(s));
  EXPECT_EQ(pool.open_connections(), 0);
}

TEST(ConnectionPool, AWaiterGetsTheSlotADiscardFrees) {
  ConnectionPool pool(local(9), options(1));
  Session held = acquire(pool, milliseconds(0));
  ASSERT_NE(held, nullptr);
  const auto start = Clock::now();
  auto waiter = std::async(std::launch::async, [&pool] { return acquire(pool, milliseconds(2000)); });
  std::this_thread::sleep_for(milliseconds(30));
  EXPECT_EQ(waiter.wait_for(milliseconds(0)), std::future_status::timeout) << "did not wait for the slot";
  pool.discard(std::move(held));
  ASSERT_EQ(waiter.wait_for(milliseconds(1000)), std::future_status::ready);
  Session got = waiter.get();
  EXPECT_NE(got, nullptr);
  EXPECT_LT(ms_since(start), 1000);
  EXPECT_EQ(pool.open_connections(), 1);
  pool.discard(std::move(got));
}

TEST(ConnectionPool, ReleasedConnectionsAreReused) {
  TestHttpServer server([](auto&, auto&, auto& response, const ServerState&) { answer(response, "ok"); });
  ConnectionPool pool(local(server.port()), options(2));
  bool reused = true;
  Session s = acquire(pool, milliseconds(0), reused);
  ASSERT_NE(s, nullptr);
  EXPECT_FALSE(reused);
  EXPECT_EQ(get(*s, "/a"), "ok");
  ASSERT_TRUE(s->connected());
  Poco::Net::HTTPClientSession* first = s.get();
  pool.release(std::move(s));
  EXPECT_EQ(pool.open_connections(), 1);  // idle connections stay counted

  for (int i = 0; i < 3; ++i) {
    Session again = acquire(pool, milliseconds(0), reused);
    ASSERT_NE(again, nullptr);
    EXPECT_TRUE(reused);
    EXPECT_EQ(again.get(), first);
    EXPECT_EQ(get(*again, "/b"), "ok");
    pool.release(std::move(again));
    EXPECT_EQ(pool.open_connections(), 1);
  }
  EXPECT_EQ(server.requests(), 4);
  EXPECT_EQ(server.connections(), 1);
}

TEST(ConnectionPool, AWaiterGetsAReleasedConnection) {
  TestHttpServer server([](auto&, auto&, auto& response, const ServerState&) { answer(response, "ok"); });
  ConnectionPool pool(local(server.port()), options(1));
  Session s = acquire(pool, milliseconds(0));
  ASSERT_NE(s, nullptr);
  EXPECT_EQ(get(*s, "/"), "ok");
  Poco::Net::HTTPClientSession* first = s.get();

  auto waiter = std::async(std::launch::async, [&pool] {
    bool reused = false;
    Session got = acquire(pool, milliseconds(2000), reused);
    return std::make_pair(std::move(got), reused);
  });
  std::this_thread::sleep_for(milliseconds(30));
  EXPECT_EQ(waiter.wait_for(milliseconds(0)), std::future_status::timeout);
  pool.release(std::move(s));
  ASSERT_EQ(waiter.wait_for(milliseconds(1000)), std::future_status::ready);
  auto [got, reused] = waiter.get();
  ASSERT_NE(got, nullptr);
  EXPECT_TRUE(reused);
  EXPECT_EQ(got.get(), first);
  EXPECT_EQ(pool.open_connections(), 1);
  pool.discard(std::move(got));
  EXPECT_EQ(pool.open_connections(), 0);
}

TEST(ConnectionPool, IdleConnectionsLeaveRoomForNoMore) {
  TestHttpServer server([](auto&, auto&, auto& response, const ServerState&) { answer(response, "ok"); });
  ConnectionPool pool(local(server.port()), options(2));
  Session a = acquire(pool, milliseconds(0));
  Session b = acquire(pool, milliseconds(0));
  ASSERT_NE(a, nullptr);
  ASSERT_NE(b, nullptr);
  EXPECT_EQ(get(*a, "/"), "ok");
  EXPECT_EQ(get(*b, "/"), "ok");
  pool.release(std::move(a));
  pool.release(std::move(b));
  EXPECT_EQ(pool.open_connections(), 2);
  // Both come back from the idle list; a third does not fit.
  bool reused = false;
  Session c = acquire(pool, milliseconds(0), reused);
  EXPECT_TRUE(reused);
  Session d = acquire(pool, milliseconds(0), reused);
  EXPECT_TRUE(reused);
  ASSERT_NE(c, nullptr);
  ASSERT_NE(d, nullptr);
  EXPECT_NE(c.get(), d.get());
  EXPECT_EQ(acquire(pool, milliseconds(20)), nullptr);
  pool.discard(std::move(c));
  pool.discard(std::move(d));
  EXPECT_EQ(pool.open_connections(), 0);
}

TEST(ConnectionPool, NeverMoreThanMaxConnectionsUnderContention) {
  constexpr int kMax = 3;
  ConnectionPool pool(local(9), options(kMax));
  std::atomic<int> in_hand{0};
  std::atomic<int> peak{0};
  std::atomic<int> served{0};
  std::atomic<bool> over_cap{false};
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < 20; ++i) {
        Session s = acquire(pool, milliseconds(2000));
        if (!s) continue;
        const int now = ++in_hand;
        int seen = peak.load();
        while (now > seen && !peak.compare_exchange_weak(seen, now)) {
        }
        if (pool.open_connections() > kMax) over_cap = true;
        std::this_thread::sleep_for(std::chrono::microseconds(300));
        --in_hand;
        ++served;
        pool.discard(std::move(s));
      }
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_FALSE(over_cap.load());
  EXPECT_LE(peak.load(), kMax);
  EXPECT_EQ(peak.load(), kMax) << "the threads never filled the pool";
  EXPECT_EQ(served.load(), 8 * 20);
  EXPECT_EQ(pool.open_connections(), 0);
}

}  // namespace
