#include "idempotency/key_keeper.h"

#include "logging/request_log.h"

#include <algorithm>

namespace modelgw::idempotency {
namespace {

// How often a request polls storage for a key another process holds, and
// how often a follower looks at its flight without being woken (a safety
// net: wakers are posted to its loop).
constexpr auto kStoragePoll = std::chrono::milliseconds(100);
constexpr auto kFollowerPoll = std::chrono::milliseconds(1000);
// Rounds of "the first failed, take the key again" before giving up.
constexpr int kMaxRounds = 8;

errors::ApiError key_reused() {
  return errors::ApiError{
      422, "idempotency_key_reused",
      "this Idempotency-Key was already used with a different request (body, X-Feature or "
      "named prompt); send a new key for a new request",
      "Idempotency-Key"};
}

errors::ApiError in_progress() {
  errors::ApiError e{
      409, "idempotency_request_in_progress",
      "a request with this Idempotency-Key is still being served; retry shortly to get its answer",
      "Idempotency-Key", 1};
  e.retryable = true;
  return e;
}

errors::ApiError not_kept(const std::string& request_id) {
  return errors::ApiError{
      409, "idempotency_response_not_kept",
      "the request first sent with this Idempotency-Key (request_id " + request_id +
          ") was served and charged once, but its answer was larger than this gateway keeps "
          "for replay; find it in GET /v1/usage",
      "Idempotency-Key"};
}

errors::ApiError unavailable() {
  errors::ApiError e{
      503,
      "idempotency_unavailable",
      "the gateway cannot check this Idempotency-Key right now (its store refused); nothing was sent "
      "upstream, retry shortly",
      {},
      1};
  e.retryable = true;
  return e;
}

}  // namespace

KeyKeeper::KeyKeeper(plugins::Storage& storage, net::BlockingPool& blocking,
                     config::IdempotencyConfig options)
    : storage_(storage),
      options_(options),
      store_(storage),
      batcher_(store_, blocking),
      purge_("idempotency", "expired keys", [this](std::int64_t now, std::int64_t limit) {
        return storage_.purge_idempotency(now, limit);
      }) {}

std::int64_t KeyKeeper::now_unix_ms() {
  using namespace std::chrono;
  return duration_cast<milliseconds>(system_clock::now().time_since_epoch()).count();
}

net::Task<KeyKeeper::Step> KeyKeeper::begin(http::ServerCall& call, std::int64_t tenant_id, std::string key,
                                            std::string digest) {
  const auto deadline = Clock::now() + std::chrono::milliseconds(options_.wait_ms);
  for (int round = 0; round < kMaxRounds; ++round) {
    std::shared_ptr<Flight> flight;
    bool mine = false;
    {
      std::lock_guard lock(flights_mutex_);
      auto& slot = flights_[{tenant_id, key}];
      if (!slot) {
        slot = std::make_shared<Flight>(tenant_id, key, digest, call.request_id());
        mine = true;
      }
      flight = slot;
    }
    if (mine) co_return co_await claim(call, std::move(flight), deadline);
    if (flight->digest() != digest) {
      co_return Step{nullptr, false, key_reused()};
    }
    std::optional<errors::ApiError> refusal;
    const Followed followed = co_await follow(call, *flight, deadline, refusal);
    switch (followed) {
      case Followed::refused:
        co_return Step{nullptr, false, std::move(refusal)};
      case Followed::answered:
        co_return Step{nullptr, true, std::nullopt};
      case Followed::timed_out:
        co_return Step{nullptr, false, in_progress()};
      case Followed::gone:
        co_return Step{nullptr, false, std::nullopt, true};
      case Followed::free:
        break;  // the first attempt is not kept: the key is free, take it
    }
  }
  co_return Step{nullptr, false, in_progress()};
}

net::Task<KeyKeeper::Step> KeyKeeper::claim(http::ServerCall& call, std::shared_ptr<Flight> flight,
                                            Clock::time_point deadline) {
  // Answers this request and every follower the same way, and lets the key go.
  auto settle = [&](Flight::Resolution r) {
    forget(*flight);
    flight->resolve(r);
    if (r.replay && r.replay->too_large) return Step{nullptr, false, not_kept(r.replay->request_id)};
    if (r.replay) {
      replay(*r.replay, call);
      return Step{nullptr, true, std::nullopt};
    }
    return Step{nullptr, false, r.error};
  };

  while (true) {
    const std::int64_t now = now_unix_ms();
    plugins::IdempotencyRow row;
    row.tenant_id = flight->tenant_id();
    row.key = flight->key();
    row.digest = flight->digest();
    row.owner = flight->owner();
    row.state = MGW_IDEMPOTENCY_PENDING;
    row.created_unix_ms = now;
    row.expires_unix_ms = now + options_.in_flight_ms;
    auto outcome = co_await batcher_.claim(std::move(row));
    using Kind = plugins::IdempotencyClaimOutcome::Kind;
    if (outcome.kind == Kind::failed) {
      logging::for_request(call.request_id()).error("idempotency: {}", outcome.error);
      co_return settle({std::nullopt, unavailable()});
    }
    if (outcome.kind == Kind::claimed) {
      flight->set_state(Flight::State::running);
      call.set_tap(flight.get());
      call.outlive_client();
      co_return Step{std::move(flight), false, std::nullopt};
    }
    const plugins::IdempotencyRow* held = &outcome.held;
    if (held->digest != flight->digest()) co_return settle({std::nullopt, key_reused()});
    if (held->state == MGW_IDEMPOTENCY_DONE) {
      auto stored = decode(held->response);
      if (!stored) {
        logging::for_request(call.request_id())
            .error("idempotency: the answer kept for this key cannot be read");
        co_return settle(
            {std::nullopt, errors::internal_error("the answer kept for this Idempotency-Key cannot be "
                                                  "read; report the request_id")});
      }
      co_return settle({std::move(stored), std::nullopt});
    }
    // Held by a request of another process (or of this one, if freeing it
    // failed): wait for it to finish, within the bound.
    if (Clock::now() + kStoragePoll > deadline) co_return settle({std::nullopt, in_progress()});
    net::SteadyTimer timer(call.executor(), kStoragePoll);
    boost::system::error_code ec;
    co_await timer.async_wait(net::asio::redirect_error(net::use_awaitable, ec));
  }
}

net::Task<KeyKeeper::Followed> KeyKeeper::follow(http::ServerCall& call, Flight& flight,
                                                 Clock::time_point deadline,
                                                 std::optional<errors::ApiError>& refusal) {
  auto timer = std::make_shared<net::SteadyTimer>(call.executor());
  const std::uint64_t waker =
      flight.add_waker([timer, ex = call.executor()] { net::asio::post(ex, [timer] { timer->cancel(); }); });
  struct Unregister {
    Flight& flight;
    std::uint64_t id;
    ~Unregister() { flight.remove_waker(id); }
  } unregister{flight, waker};
  net::ScopedSlot on_hangup(&call.hangup(), [timer] { timer->cancel(); });

  std::size_t sent = 0;
  bool head_written = false;
  while (true) {
    Flight::View v = flight.view(sent);
    if (v.state == Flight::State::resolved) {
      if (v.resolution.replay && !v.resolution.replay->too_large) {
        replay(*v.resolution.replay, call);
        co_return Followed::answered;
      }
      refusal = v.resolution.replay ? not_kept(v.resolution.replay->request_id) : *v.resolution.error;
      co_return Followed::refused;
    }
    const bool over = v.state == Flight::State::done || v.state == Flight::State::released;
    if (v.has_head && v.head.stream) {
      // A stream is followed event by event, whatever comes of it: this
      // client sees what the first one saw.
      if (!head_written) {
        replay_head(v.head, call);
        head_written = true;
      }
      for (const auto& e : v.events) call.append_chunk(e);
      sent += v.events.size();
      if (v.ended || over) {
        call.end_chunks();
        co_return Followed::answered;
      }
      if (!co_await call.flush()) co_return Followed::answered;  // this client left
    } else if (v.state == Flight::State::done && v.has_head) {
      v.head.body = std::move(v.body);
      replay_head(v.head, call);
      co_return Followed::answered;
    } else if (over) {
      co_return Followed::free;  // not kept: the key is free again
    }
    if (call.client_gone()) co_return Followed::gone;  // nothing to send to
    if (flight.version() != v.version) continue;
    const auto now = Clock::now();
    if (!head_written && now >= deadline) co_return Followed::timed_out;
    auto wait = std::chrono::duration_cast<std::chrono::milliseconds>(kFollowerPoll);
    if (!head_written) {
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - now);
      wait = std::max(std::chrono::milliseconds(1), std::min(wait, left));
    }
    timer->expires_after(wait);
    boost::system::error_code ec;
    co_await timer->async_wait(net::asio::redirect_error(net::use_awaitable, ec));
  }
}

void KeyKeeper::finish(std::shared_ptr<Flight> flight, bool keep) {
  plugins::IdempotencyRow row;
  row.tenant_id = flight->tenant_id();
  row.key = flight->key();
  row.owner = flight->owner();
  row.state = MGW_IDEMPOTENCY_FREE;  // not kept: the key is freed
  if (keep) {
    auto kept = flight->kept(options_.max_response_bytes);
    if (kept.too_large) {
      logging::for_request(flight->owner())
          .info(
              "idempotency: the answer ({} bytes) is over idempotency.max_response_bytes ({}); "
              "the key is kept without it",
              kept.bytes, options_.max_response_bytes);
    }
    row.digest = flight->digest();
    row.state = MGW_IDEMPOTENCY_DONE;
    row.response = std::move(kept.stored);
    // The key lives ttl_ms from now, when its answer is kept (README).
    row.expires_unix_ms = now_unix_ms() + options_.ttl_ms;
  }
  // Runs on the blocking pool once the row's batch is written; the flight
  // (and its followers) wait for it, the request's connection does not.
  batcher_.finish(std::move(row),
                  [this, flight = std::move(flight), keep](plugins::IdempotencyFinishOutcome outcome) {
                    using Kind = plugins::IdempotencyFinishOutcome::Kind;
                    if (outcome.kind == Kind::lapsed) {
                      logging::for_request(flight->owner())
                          .warn("idempotency: the key's claim lapsed before the answer was kept");
                    } else if (outcome.kind == Kind::failed) {
                      // Followers still get the answer from memory; later retries find the
                      // claim PENDING until in_flight_ms passes.
                      logging::for_request(flight->owner()).error("idempotency: {}", outcome.error);
                    }
                    forget(*flight);
                    flight->set_state(keep ? Flight::State::done : Flight::State::released);
                  });
}

void KeyKeeper::forget(const Flight& flight) {
  std::lock_guard lock(flights_mutex_);
  auto it = flights_.find({flight.tenant_id(), flight.key()});
  if (it != flights_.end() && it->second.get() == &flight) flights_.erase(it);
}

void KeyKeeper::start() {
  purge_.start("mgw-key-purge", std::chrono::milliseconds(options_.purge_interval_ms));
}

}  // namespace modelgw::idempotency
