#include "usage/usage_query.h"

#include "budget/feature_name.h"
#include "http/query_parameters.h"
#include "usage/usage_cursor.h"
#include "usage/usage_json.h"

#include <charconv>
#include <chrono>

namespace modelgw::usage {
namespace {

using nlohmann::json;

errors::ApiError invalid(const std::string& param, const std::string& message) {
  return errors::bad_request("invalid_parameter", message, param);
}

// An operation name: 1 to 32 of a-z and '.', as the gateway names its APIs
// ("chat.completions", "responses"); anything else cannot match a record.
bool valid_operation(std::string_view s) {
  return !s.empty() && s.size() <= 32 &&
         s.find_first_not_of("abcdefghijklmnopqrstuvwxyz.") == std::string_view::npos;
}

bool all_digits(std::string_view s) {
  return !s.empty() && s.find_first_not_of("0123456789") == std::string_view::npos;
}

std::optional<std::int64_t> integer(std::string_view s, std::size_t max_digits = 18) {
  if (!all_digits(s) || s.size() > max_digits) return std::nullopt;
  std::int64_t n = 0;
  std::from_chars(s.data(), s.data() + s.size(), n);
  return n;
}

int digits(std::string_view s, std::size_t at, std::size_t n) {
  if (at + n > s.size() || !all_digits(s.substr(at, n))) return -1;
  int v = 0;
  for (std::size_t i = 0; i < n; ++i) v = v * 10 + (s[at + i] - '0');
  return v;
}

}  // namespace

std::optional<std::int64_t> parse_time(std::string_view s) {
  if (all_digits(s)) {
    auto seconds = integer(s, 12);  // up to the year 33658
    if (!seconds) return std::nullopt;
    return *seconds * 1000;
  }
  // YYYY-MM-DDTHH:MM:SS[.fraction](Z|+HH:MM|-HH:MM), RFC 3339 section 5.6.
  const int year = digits(s, 0, 4), month = digits(s, 5, 2), day = digits(s, 8, 2);
  const int hour = digits(s, 11, 2), minute = digits(s, 14, 2), second = digits(s, 17, 2);
  if (s.size() < 20 || s[4] != '-' || s[7] != '-' || (s[10] != 'T' && s[10] != 't') || s[13] != ':' ||
      s[16] != ':' || year < 1970 || month < 1 || month > 12 || day < 1 || hour > 23 || minute > 59 ||
      second > 60 || hour < 0 || minute < 0 || second < 0) {
    return std::nullopt;
  }
  using namespace std::chrono;
  const year_month_day ymd{std::chrono::year(year), std::chrono::month(static_cast<unsigned>(month)),
                           std::chrono::day(static_cast<unsigned>(day))};
  if (!ymd.ok()) return std::nullopt;
  std::size_t at = 19;
  std::int64_t ms = 0;
  if (at < s.size() && s[at] == '.') {
    std::size_t end = at + 1;
    while (end < s.size() && s[end] >= '0' && s[end] <= '9') ++end;
    if (end == at + 1 || end - at > 10) return std::nullopt;
    for (std::size_t i = at + 1; i < at + 4; ++i) ms = ms * 10 + (i < end ? s[i] - '0' : 0);
    at = end;
  }
  std::int64_t offset_min = 0;
  const std::string_view zone = s.substr(at);
  if (zone == "Z" || zone == "z") {
    offset_min = 0;
  } else if (zone.size() == 6 && (zone[0] == '+' || zone[0] == '-') && zone[3] == ':') {
    const int oh = digits(zone, 1, 2), om = digits(zone, 4, 2);
    if (oh < 0 || om < 0 || oh > 23 || om > 59) return std::nullopt;
    offset_min = (zone[0] == '-' ? -1 : 1) * (oh * 60 + om);
  } else {
    return std::nullopt;
  }
  const std::int64_t days_since = sys_days(ymd).time_since_epoch().count();
  const std::int64_t secs =
      days_since * 86400 + hour * 3600 + minute * 60 + std::min(second, 59) - offset_min * 60;
  return secs * 1000 + ms;
}

std::variant<UsageRequest, errors::ApiError> parse_usage_query(std::string_view query,
                                                               std::int64_t tenant_id) {
  UsageRequest out;
  auto& f = out.filter;
  f.tenant_id = tenant_id;
  f.limit = 100;
  auto parsed = http::strict_query_parameters(query);
  if (auto* err = std::get_if<errors::ApiError>(&parsed)) return *err;
  const auto& params = std::get<http::QueryParameters>(parsed);
  std::optional<std::string> cursor;
  bool limit_given = false;
  for (const auto& [name, value] : params) {
    if (name == "from" || name == "to") {
      auto t = parse_time(value);
      if (!t) {
        return invalid(name, "'" + name +
                                 "' must be an RFC 3339 time (2026-11-24T10:00:00Z) or Unix seconds, not '" +
                                 errors::input_excerpt(value, 40) + "'");
      }
      (name == "from" ? f.from_unix_ms : f.to_unix_ms) = *t;
    } else if (name == "model") {
      if (value.empty() || value.size() > 128)
        return invalid(name, "'model' must be a catalog alias (1 to 128 bytes)");
      f.model = value;
    } else if (name == "feature") {
      if (budget::check_feature(value)) {
        return invalid(name, "'feature' must be 1 to 64 characters of A-Z a-z 0-9 . _ : - (got " +
                                 std::to_string(value.size()) + " bytes)");
      }
      f.feature = value;
    } else if (name == "key_id") {
      auto id = integer(value);
      if (!id || *id < 1) return invalid(name, "'key_id' must be a positive integer");
      f.key_id = *id;
    } else if (name == "status") {
      if (value == "success") {
        f.status_min = 200, f.status_max = 299;
      } else if (value == "error") {
        f.status_min = 400, f.status_max = 599;
      } else if (auto code = integer(value, 3); code && *code >= 100 && *code <= 599) {
        f.status_min = f.status_max = static_cast<int>(*code);
      } else {
        return invalid(name, "'status' must be an HTTP status (100-599), 'success' or 'error'");
      }
    } else if (name == "stream") {
      if (value != "true" && value != "false") return invalid(name, "'stream' must be true or false");
      f.stream = value == "true" ? 1 : 0;
    } else if (name == "limit") {
      auto n = integer(value, 6);
      if (!n || *n < 1 || *n > 1000) {
        return invalid(name, "'limit' must be an integer from 1 to 1000, not '" +
                                 errors::input_excerpt(value, 24) + "'");
      }
      f.limit = *n;
      limit_given = true;
    } else if (name == "cursor") {
      cursor = value;
    } else if (name == "operation") {
      if (!valid_operation(value)) {
        return invalid(name,
                       "'operation' must be an API name of 1 to 32 characters a-z and '.' "
                       "(chat.completions, responses), not '" +
                           errors::input_excerpt(value, 40) + "'");
      }
      f.operation = value;
    } else if (name == "group_by") {
      if (value != "day" && value != "hour" && value != "model" && value != "feature" && value != "key") {
        return invalid(name, "'group_by' must be day, hour, model, feature or key");
      }
      out.group_by = value;
    } else {
      return invalid(
          errors::input_excerpt(name, 32),
          "'" + errors::input_excerpt(name, 32) +
              "' is not a parameter of GET /v1/usage (from, to, model, feature, key_id, status, stream, "
              "operation, limit, cursor, group_by)");
    }
  }
  if (f.from_unix_ms != 0 && f.to_unix_ms != 0 && f.from_unix_ms >= f.to_unix_ms) {
    return invalid("from", "'from' must be before 'to'");
  }
  if (!out.group_by.empty() && (cursor || limit_given)) {
    return invalid(cursor ? "cursor" : "limit",
                   "group_by answers every group at once: 'limit' and 'cursor' do not apply");
  }
  if (cursor) {
    auto seq = decode_cursor(f, *cursor);
    if (!seq) {
      return invalid(
          "cursor",
          "'cursor' is not one this endpoint issued for these filters; pass next_cursor back unchanged, "
          "with the same other parameters");
    }
    f.before_seq = *seq;
  }
  return out;
}

UsageAnswer answer_usage_query(std::string_view query, std::int64_t tenant_id, UsageStore& store,
                               std::int64_t /*now_unix_ms*/) {
  UsageAnswer answer;
  auto parsed = parse_usage_query(query, tenant_id);
  if (auto* err = std::get_if<errors::ApiError>(&parsed)) {
    answer.error = *err;
    return answer;
  }
  const UsageRequest& request = std::get<UsageRequest>(parsed);
  plugins::UsageFilter sums = request.filter;
  sums.before_seq = 0;
  sums.group_by.clear();
  // The totals are read after the page or the groups: the usage writer may
  // commit between two reads, and then the totals count records newer than
  // the page (as they would a moment later), never fewer than it shows.
  const auto read_totals = [&] {
    const auto totals = store.usage_totals(sums);
    return sums_json(totals.empty() ? plugins::UsageGroup{} : totals.front());
  };
  json body;
  if (!request.group_by.empty()) {
    plugins::UsageFilter grouped = sums;
    grouped.group_by = request.group_by;
    json data = json::array();
    for (const auto& g : store.usage_totals(grouped)) {
      json row = sums_json(g);
      row["key"] = group_key_json(request.group_by, g.key);
      data.push_back(std::move(row));
    }
    body = {{"object", "list"},
            {"group_by", request.group_by},
            {"data", std::move(data)},
            {"totals", read_totals()}};
  } else {
    plugins::UsageFilter page = request.filter;
    const std::int64_t limit = page.limit;
    page.limit = limit + 1;  // one more: is there another page?
    if (page.limit > 1000) page.limit = 1000;
    auto rows = store.usage_page(page);
    bool has_more = static_cast<std::int64_t>(rows.size()) > limit;
    if (limit == 1000 && static_cast<std::int64_t>(rows.size()) == 1000) {
      // The plugin pages at most 1000: ask whether one more exists.
      plugins::UsageFilter probe = request.filter;
      probe.before_seq = rows.back().seq;
      probe.limit = 1;
      has_more = !store.usage_page(probe).empty();
    }
    if (static_cast<std::int64_t>(rows.size()) > limit) rows.resize(static_cast<std::size_t>(limit));
    json data = json::array();
    for (const auto& r : rows) data.push_back(record_json(r));
    body = {{"object", "list"},
            {"data", std::move(data)},
            {"has_more", has_more},
            {"next_cursor",
             has_more && !rows.empty() ? json(encode_cursor(request.filter, rows.back().seq)) : json()},
            {"totals", read_totals()}};
  }
  answer.body = body.dump(-1, ' ', false, json::error_handler_t::replace);
  return answer;
}

}  // namespace modelgw::usage
