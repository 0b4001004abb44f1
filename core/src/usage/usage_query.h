// GET /v1/usage: the caller's tenant's usage records, newest first, filtered
// and paged by an opaque cursor, with totals over the whole filter; or, with
// group_by, sums per day, hour, model, feature or key. Parameters are checked
// strictly (an unknown or repeated one is a 400 naming it). Runs on the
// blocking pool: it reads storage.
#pragma once

#include "errors/api_error.h"
#include "plugins/storage.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace modelgw::usage {

// What the query reads: the storage plugin, or a fake in tests.
class UsageStore {
 public:
  virtual ~UsageStore() = default;
  virtual std::vector<plugins::UsageRow> usage_page(const plugins::UsageFilter& filter) = 0;
  virtual std::vector<plugins::UsageGroup> usage_totals(const plugins::UsageFilter& filter) = 0;
};

class StorageUsageStore : public UsageStore {
 public:
  explicit StorageUsageStore(plugins::Storage& storage) : storage_(storage) {}
  std::vector<plugins::UsageRow> usage_page(const plugins::UsageFilter& f) override {
    return storage_.usage_page(f);
  }
  std::vector<plugins::UsageGroup> usage_totals(const plugins::UsageFilter& f) override {
    return storage_.usage_totals(f);
  }

 private:
  plugins::Storage& storage_;
};

// The query string, checked: the filter, the cursor's seq and the page size.
struct UsageRequest {
  plugins::UsageFilter filter;
  std::string group_by;
};
std::variant<UsageRequest, errors::ApiError> parse_usage_query(std::string_view query,
                                                               std::int64_t tenant_id);

// A time parameter: RFC 3339 ("2026-11-24T10:00:00Z", offsets, fractions) or
// Unix seconds; Unix ms, or nullopt.
std::optional<std::int64_t> parse_time(std::string_view text);

struct UsageAnswer {
  std::string body;  // JSON without request_id
  std::optional<errors::ApiError> error;
};

UsageAnswer answer_usage_query(std::string_view query, std::int64_t tenant_id, UsageStore& store,
                               std::int64_t now_unix_ms);

}  // namespace modelgw::usage
