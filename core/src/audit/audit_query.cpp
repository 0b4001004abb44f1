#include "audit/audit_query.h"

#include "budget/budget_report.h"
#include "http/query_parameters.h"
#include "usage/usage_query.h"
#include "util/page_cursor.h"

#include <nlohmann/json.hpp>

#include <charconv>
#include <cstdio>

namespace modelgw::audit {
namespace {

using nlohmann::json;

constexpr std::int64_t kMaxLimit = 1000;

errors::ApiError invalid(const std::string& param, const std::string& message) {
  return errors::bad_request("invalid_parameter", message, param);
}

// The tenant and every filter, one per line: a cursor is bound to them.
std::string filter_text(const plugins::AuditFilter& f) {
  return std::to_string(f.tenant_id) + '\n' + std::to_string(f.from_unix_ms) + '\n' +
         std::to_string(f.to_unix_ms) + '\n' + f.action + '\n' + f.actor;
}

std::string encode_cursor(const plugins::AuditFilter& f, std::int64_t seq) {
  return util::encode_page_cursor("a1", filter_text(f), seq);
}

std::optional<std::int64_t> decode_cursor(const plugins::AuditFilter& f, std::string_view cursor) {
  return util::decode_page_cursor("a1", filter_text(f), cursor);
}

json event_json(const plugins::AuditRow& e) {
  json details = json::parse(e.details_json, nullptr, false);
  if (details.is_discarded()) details = json::object();
  return json{{"object", "audit_event"},
              {"id", "aud_" + std::to_string(e.tenant_id) + "_" + std::to_string(e.seq)},
              {"tenant_id", e.tenant_id},
              {"seq", e.seq},
              {"created", e.created_unix_ms / 1000},
              {"created_at", budget::utc_timestamp_ms(e.created_unix_ms)},
              {"actor", e.actor},
              {"action", e.action},
              {"target", e.target},
              {"request_id", e.request_id.empty() ? json() : json(e.request_id)},
              {"details", std::move(details)},
              {"prev_hash", e.prev_hash},
              {"hash", e.hash}};
}

bool printable(std::string_view s) {
  for (const char c : s) {
    if (static_cast<unsigned char>(c) < 0x20 || static_cast<unsigned char>(c) > 0x7E) return false;
  }
  return true;
}

}  // namespace

std::variant<AuditRequest, errors::ApiError> parse_audit_query(std::string_view query, bool internal) {
  AuditRequest out;
  auto& f = out.filter;
  f.limit = 100;
  auto parsed = http::strict_query_parameters(query);
  if (auto* err = std::get_if<errors::ApiError>(&parsed)) return *err;
  const auto& params = std::get<http::QueryParameters>(parsed);
  std::optional<std::string> cursor;
  for (const auto& [name, value] : params) {
    if (name == "from" || name == "to") {
      auto t = usage::parse_time(value);
      if (!t) {
        return invalid(name, "'" + name +
                                 "' must be an RFC 3339 time (2026-11-24T10:00:00Z) or Unix seconds, not '" +
                                 errors::input_excerpt(value, 40) + "'");
      }
      (name == "from" ? f.from_unix_ms : f.to_unix_ms) = *t;
    } else if (name == "action" || name == "actor") {
      if (value.empty() || value.size() > 256 || !printable(value))
        return invalid(name, "'" + name + "' must be 1 to 256 printable ASCII characters");
      (name == "action" ? f.action : f.actor) = value;
    } else if (name == "limit") {
      std::int64_t n = 0;
      const auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), n);
      if (value.empty() || value.size() > 4 || ec != std::errc() || end != value.data() + value.size() ||
          n < 1 || n > kMaxLimit) {
        return invalid(name, "'limit' must be an integer from 1 to 1000, not '" +
                                 errors::input_excerpt(value, 24) + "'");
      }
      f.limit = n;
    } else if (name == "cursor") {
      cursor = value;
    } else if (name == "tenant" && internal) {
      out.tenant = value;
    } else {
      return invalid(name, "'" + errors::input_excerpt(name, 32) + "' is not a parameter of GET " +
                               (internal ? "/internal/v1/audit (tenant, " : "/v1/audit (") +
                               "from, to, action, actor, limit, cursor)");
    }
  }
  if (f.from_unix_ms > 0 && f.to_unix_ms > 0 && f.from_unix_ms >= f.to_unix_ms)
    return invalid("from", "'from' must be before 'to'");
  if (cursor) out.cursor = *cursor;
  return out;
}

AuditAnswer answer_audit_query(const AuditRequest& request, plugins::Storage& storage) {
  AuditAnswer answer;
  plugins::AuditFilter page = request.filter;
  if (!request.cursor.empty()) {
    auto seq = decode_cursor(page, request.cursor);
    if (!seq) {
      answer.error =
          invalid("cursor",
                  "'cursor' is not one this endpoint issued for these filters; pass next_cursor back "
                  "unchanged, with the same filters");
      return answer;
    }
    page.before_seq = *seq;
  }
  const std::int64_t limit = page.limit;
  page.limit = limit + 1;  // one more: is there another page?
  auto rows = storage.audit_page(page);
  const bool has_more = static_cast<std::int64_t>(rows.size()) > limit;
  if (has_more) rows.resize(static_cast<std::size_t>(limit));
  json data = json::array();
  for (const auto& r : rows) data.push_back(event_json(r));
  const json body = {
      {"object", "list"},
      {"data", std::move(data)},
      {"has_more", has_more},
      {"next_cursor", has_more ? json(encode_cursor(request.filter, rows.back().seq)) : json()}};
  answer.body = body.dump(-1, ' ', false, json::error_handler_t::replace);
  return answer;
}

}  // namespace modelgw::audit
