// Reads the gateway's SQLite file directly (read-only), as an operator would.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace it {

struct UsageRecord {
  std::string request_id;
  std::int64_t tenant_id = 0;
  std::int64_t key_id = 0;
  std::string alias;
  std::string provider;
  std::string upstream_model;
  std::int64_t prompt_tokens = 0;
  std::int64_t completion_tokens = 0;
  std::int64_t total_tokens = 0;
  std::int64_t http_status = 0;
  std::string error_code;
  std::int64_t latency_us = 0;
  std::int64_t ttft_us = 0;
  std::int64_t streamed = 0;
  std::int64_t created_unix_ms = 0;
  std::string prompt_name;  // the named prompt invoked, "" for none
  std::int64_t prompt_version = 0;
  std::string pii_action;    // "blocked", "masked", "flagged" or ""
  std::string pii_findings;  // {"email":1}, or ""
};

class UsageDb {
 public:
  explicit UsageDb(std::string path) : path_(std::move(path)) {}

  std::vector<UsageRecord> records_for(const std::string& request_id) const;
  std::int64_t count_all() const;
  std::optional<std::int64_t> tenant_id(const std::string& name) const;
  // Runs `sql` on the store (read-write), as someone with the database would.
  void exec(const std::string& sql) const;
  // Rows of `action` in the tenant's audit chain.
  std::int64_t count_audit(std::int64_t tenant_id, const std::string& action) const;
  // Polls until the request's record is there (bounded); nullopt if never.
  std::optional<UsageRecord> wait_for(const std::string& request_id,
                                      std::chrono::milliseconds timeout = std::chrono::seconds(5)) const;

 private:
  std::string path_;
};

std::int64_t unix_ms_now();

}  // namespace it
