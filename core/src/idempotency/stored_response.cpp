#include "idempotency/stored_response.h"

#include "util/ascii.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cctype>

namespace modelgw::idempotency {
namespace {

using util::istarts_with;

}  // namespace

std::size_t StoredResponse::bytes() const {
  std::size_t n = body.size();
  for (const auto& e : events) n += e.size();
  for (const auto& [name, value] : headers) n += name.size() + value.size();
  return n;
}

bool replays_header(std::string_view name) {
  return !istarts_with(name, "x-ratelimit") && !istarts_with(name, "ratelimit") &&
         !istarts_with(name, "retry-after");
}

std::string encode(const StoredResponse& r) {
  nlohmann::json j = {{"request_id", r.request_id}, {"status", r.status}, {"stream", r.stream}};
  if (r.too_large) {
    j["too_large"] = true;
    return j.dump();
  }
  auto& headers = j["headers"] = nlohmann::json::array();
  for (const auto& [name, value] : r.headers) headers.push_back({name, value});
  if (r.stream) {
    j["events"] = r.events;
    j["ended"] = r.ended;
  } else {
    j["body"] = r.body;
  }
  // Bytes the model produced are not always valid UTF-8 JSON text: keep
  // them rather than fail (they are replayed as they were sent).
  return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

std::optional<StoredResponse> decode(std::string_view text) {
  const auto j = nlohmann::json::parse(text, nullptr, false);
  if (!j.is_object()) return std::nullopt;
  StoredResponse r;
  try {
    r.request_id = j.at("request_id").get<std::string>();
    r.status = j.at("status").get<int>();
    r.stream = j.at("stream").get<bool>();
    r.too_large = j.value("too_large", false);
    if (r.too_large) return r;
    for (const auto& h : j.at("headers"))
      r.headers.emplace_back(h.at(0).get<std::string>(), h.at(1).get<std::string>());
    if (r.stream) {
      r.events = j.at("events").get<std::vector<std::string>>();
      r.ended = j.at("ended").get<bool>();
    } else {
      r.body = j.at("body").get<std::string>();
    }
  } catch (const nlohmann::json::exception&) {
    return std::nullopt;
  }
  if (r.status < 100 || r.status > 599) return std::nullopt;
  return r;
}

void replay_head(const StoredResponse& r, http::ServerCall& call) {
  for (const auto& [name, value] : r.headers) call.set_header(name, value);
  call.set_header("Idempotent-Replayed", "true");
  call.answer_as(r.request_id);
  if (r.stream) {
    call.start_event_stream();
  } else {
    call.send_json(r.status, r.body);
  }
}

void replay(const StoredResponse& r, http::ServerCall& call) {
  replay_head(r, call);
  if (!r.stream) return;
  for (const auto& e : r.events) call.append_chunk(e);
  call.end_chunks();
}

}  // namespace modelgw::idempotency
