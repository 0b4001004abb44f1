#include "idempotency/stored_response.h"

#include "util/ascii.h"
#include "util/json_text.h"

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
  // Written directly (the answer is kept on every keyed request; a DOM
  // would copy the body and escape it through the serializer). Bytes the
  // model produced are not always valid UTF-8: kept as U+FFFD rather than
  // failing, as they were replayed before.
  // One allocation: each string may grow by escaping (append_json_string
  // reserves an eighth more for it), and each gets quotes and a separator.
  const std::size_t strings = r.bytes() + r.request_id.size();
  const std::size_t pieces = 2 * r.headers.size() + r.events.size() + 2;
  std::string out;
  out.reserve(strings + strings / 8 + 4 * pieces + 128);
  out.append("{\"request_id\":");
  util::append_json_string(out, r.request_id);
  out.append(",\"status\":").append(std::to_string(r.status));
  out.append(",\"stream\":").append(r.stream ? "true" : "false");
  if (r.too_large) return out.append(",\"too_large\":true}");
  out.append(",\"headers\":[");
  for (std::size_t i = 0; i < r.headers.size(); ++i) {
    out.append(i == 0 ? "[" : ",[");
    util::append_json_string(out, r.headers[i].first);
    out.push_back(',');
    util::append_json_string(out, r.headers[i].second);
    out.push_back(']');
  }
  out.push_back(']');
  if (r.stream) {
    out.append(",\"events\":[");
    for (std::size_t i = 0; i < r.events.size(); ++i) {
      if (i > 0) out.push_back(',');
      util::append_json_string(out, r.events[i]);
    }
    out.append("],\"ended\":").append(r.ended ? "true" : "false");
  } else {
    out.append(",\"body\":");
    util::append_json_string(out, r.body);
  }
  out.push_back('}');
  return out;
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
