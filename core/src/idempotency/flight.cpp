#include "idempotency/flight.h"

namespace modelgw::idempotency {

void Flight::changed(std::unique_lock<std::mutex>& lock) {
  ++version_;
  auto wakers = wakers_;  // called outside the lock: a waker may read the flight
  lock.unlock();
  for (auto& [id, wake] : wakers) wake();
}

void Flight::on_head(int status, bool stream,
                     const std::vector<std::pair<std::string, std::string>>& headers) {
  std::unique_lock lock(mutex_);
  has_head_ = true;
  answer_.request_id = owner_;
  answer_.status = status;
  answer_.stream = stream;
  answer_.headers.clear();
  for (const auto& [name, value] : headers) {
    if (replays_header(name)) answer_.headers.emplace_back(name, value);
  }
  changed(lock);
}

void Flight::on_body(std::string_view body) {
  std::unique_lock lock(mutex_);
  answer_.body.assign(body.data(), body.size());
  changed(lock);
}

void Flight::on_chunk(std::string_view data) {
  std::unique_lock lock(mutex_);
  answer_.events.emplace_back(data);
  changed(lock);
}

void Flight::on_end() {
  std::unique_lock lock(mutex_);
  answer_.ended = true;
  changed(lock);
}

void Flight::set_state(State state) {
  std::unique_lock lock(mutex_);
  state_ = state;
  changed(lock);
}

void Flight::resolve(Resolution resolution) {
  std::unique_lock lock(mutex_);
  resolution_ = std::move(resolution);
  state_ = State::resolved;
  changed(lock);
}

Flight::Kept Flight::kept(std::size_t max_bytes) const {
  std::lock_guard lock(mutex_);
  Kept k;
  k.bytes = answer_.bytes();
  if (k.bytes <= max_bytes) {
    k.stored = encode(answer_);
    return k;
  }
  StoredResponse marker;
  marker.request_id = answer_.request_id;
  marker.status = answer_.status;
  marker.stream = answer_.stream;
  marker.too_large = true;
  k.stored = encode(marker);
  k.too_large = true;
  return k;
}

Flight::View Flight::view(std::size_t first_event) const {
  std::lock_guard lock(mutex_);
  View v;
  v.state = state_;
  v.version = version_;
  v.has_head = has_head_;
  if (has_head_) {
    v.head.request_id = answer_.request_id;
    v.head.status = answer_.status;
    v.head.stream = answer_.stream;
    v.head.headers = answer_.headers;
    v.body = answer_.body;
  }
  for (std::size_t i = first_event; i < answer_.events.size(); ++i) v.events.push_back(answer_.events[i]);
  v.ended = answer_.ended;
  if (state_ == State::resolved) v.resolution = resolution_;
  return v;
}

std::uint64_t Flight::version() const {
  std::lock_guard lock(mutex_);
  return version_;
}

std::uint64_t Flight::add_waker(std::function<void()> wake) {
  std::lock_guard lock(mutex_);
  wakers_.emplace_back(++last_waker_, std::move(wake));
  return last_waker_;
}

void Flight::remove_waker(std::uint64_t id) {
  std::lock_guard lock(mutex_);
  for (auto it = wakers_.begin(); it != wakers_.end(); ++it) {
    if (it->first == id) {
      wakers_.erase(it);
      return;
    }
  }
}

}  // namespace modelgw::idempotency
