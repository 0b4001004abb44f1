// One keyed chat request in flight in this process, shared by the request
// that makes the call (the owner) and the duplicates of its key that arrive
// meanwhile (followers). The owner's answer is captured here as it is
// buffered (a ResponseTap), so a follower writes the same bytes as they come:
// a client that reconnects mid-stream with its key loses no event.
//
// THREADING: the owner writes on its loop, followers read on theirs; every
// member is behind the mutex. A follower registers a waker, which the flight
// calls (outside the lock) after each change.
#pragma once

#include "errors/api_error.h"
#include "http/server_call.h"
#include "idempotency/stored_response.h"

#include <cstdint>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace modelgw::idempotency {

class Flight : public http::ResponseTap {
 public:
  enum class State {
    claiming,  // its first request is asking storage for the key
    running,   // the key is this process's: the owner is making the call
    done,      // the owner's answer is complete and kept: replay it
    released,  // the owner's answer is not kept (it failed): the key is free
    resolved,  // storage answered for the key: `resolution` says how
  };
  // What storage said when the key was not this process's to take.
  struct Resolution {
    std::optional<StoredResponse> replay;   // a kept answer
    std::optional<errors::ApiError> error;  // or a refusal (reused key, in progress elsewhere, ...)
  };
  // What a follower has not seen yet.
  struct View {
    State state = State::claiming;
    std::uint64_t version = 0;
    bool has_head = false;
    StoredResponse head;              // status, stream, headers, request_id (no body or events)
    std::string body;                 // a whole answer's body, once there
    std::vector<std::string> events;  // events from the index asked for on
    bool ended = false;
    Resolution resolution;
  };

  Flight(std::int64_t tenant_id, std::string key, std::string digest, std::string owner_request_id)
      : tenant_id_(tenant_id),
        key_(std::move(key)),
        digest_(std::move(digest)),
        owner_(std::move(owner_request_id)) {}

  std::int64_t tenant_id() const { return tenant_id_; }
  const std::string& key() const { return key_; }
  const std::string& digest() const { return digest_; }
  const std::string& owner() const { return owner_; }

  // The owner's answer, as buffered (http::ResponseTap).
  void on_head(int status, bool stream,
               const std::vector<std::pair<std::string, std::string>>& headers) override;
  void on_body(std::string_view body) override;
  void on_chunk(std::string_view data) override;
  void on_end() override;

  // State changes, each waking every follower.
  void set_state(State state);
  void resolve(Resolution resolution);

  // The owner's answer as it stands, in its stored form (encode()), read in
  // place: a whole answer is not copied to be kept. An answer of more than
  // `max_bytes` is kept as a too_large marker; `bytes` is its size either way.
  struct Kept {
    std::string stored;
    std::size_t bytes = 0;
    bool too_large = false;
  };
  Kept kept(std::size_t max_bytes) const;
  View view(std::size_t first_event) const;
  std::uint64_t version() const;

  // A follower's waker: called after every change until removed.
  std::uint64_t add_waker(std::function<void()> wake);
  void remove_waker(std::uint64_t id);

 private:
  void changed(std::unique_lock<std::mutex>& lock);

  const std::int64_t tenant_id_;
  const std::string key_;
  const std::string digest_;
  const std::string owner_;
  mutable std::mutex mutex_;
  State state_ = State::claiming;
  std::uint64_t version_ = 0;
  bool has_head_ = false;
  StoredResponse answer_;
  Resolution resolution_;
  std::uint64_t last_waker_ = 0;
  std::vector<std::pair<std::uint64_t, std::function<void()>>> wakers_;
};

}  // namespace modelgw::idempotency
