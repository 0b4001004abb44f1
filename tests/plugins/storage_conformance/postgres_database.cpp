#include "postgres_database.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <chrono>
#include <stdexcept>
#include <thread>

namespace storage_test {

PostgresDatabase::PostgresDatabase(const std::string& test_name)
    : PostgresDatabase(test_name, test_cluster_dsn()) {}

PostgresDatabase::PostgresDatabase(const std::string& test_name, const std::string& dsn)
    : dsn_(dsn),
      schema_(unique_schema_name(test_name)),
      admin_(dsn_with(dsn, "application_name", "mgw_test_admin")) {}

PostgresDatabase::~PostgresDatabase() {
  try {
    admin_.exec("DROP SCHEMA IF EXISTS " + quote_ident(schema_) + " CASCADE");
  } catch (const std::exception& e) {
    ADD_FAILURE() << "could not drop the test schema " << schema_ << ": " << e.what();
  }
}

std::string PostgresDatabase::config(const std::string& extra) const {
  // Small pools: ctest runs tests in parallel on one cluster (max_connections 400).
  std::string json = "{\"dsn\": " + nlohmann::json(dsn_).dump() +
                     ", \"schema\": " + nlohmann::json(schema_).dump() +
                     ", \"application_name\": " + nlohmann::json(schema_).dump() + ", \"pool_size\": 3";
  if (!extra.empty()) json += ", " + extra;
  return json + "}";
}

std::string PostgresDatabase::on_usage_insert_of(const std::string& request_id, const std::string& body) {
  const std::string name = "mgw_test_trigger_" + std::to_string(++triggers_);
  const std::string fn = quote_ident(schema_) + "." + name;
  admin_.exec("CREATE FUNCTION " + fn + "() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN " + body +
              " END $$");
  admin_.exec("CREATE TRIGGER " + name + " BEFORE INSERT ON " + quote_ident(schema_) +
              ".usage_records FOR EACH ROW WHEN (NEW.request_id = " + quote_literal(request_id) +
              ") EXECUTE FUNCTION " + fn + "()");
  return name;
}

void PostgresDatabase::drop_trigger(const std::string& name) {
  admin_.exec("DROP TRIGGER " + name + " ON " + quote_ident(schema_) + ".usage_records");
}

void PostgresDatabase::refuse_usage_insert(const std::string& request_id, const std::string& message) {
  on_usage_insert_of(request_id, "RAISE EXCEPTION '%', " + quote_literal(message) + ";");
}

int64_t PostgresDatabase::plugin_backends() {
  return admin_.integer("SELECT count(*) FROM pg_stat_activity WHERE application_name = " +
                        quote_literal(schema_));
}

void PostgresDatabase::terminate_plugin_backends() {
  admin_.exec("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = " +
              quote_literal(schema_));
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (plugin_backends() > 0) {
    if (std::chrono::steady_clock::now() > deadline)
      throw std::runtime_error("the plugin's backends were still there 10 s after pg_terminate_backend");
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
}

}  // namespace storage_test
