// How usage reads back in GET /v1/usage: a record, and sums over records.
// Money as a decimal string with 6 places beside exact integer micro-USD.
#pragma once

#include "plugins/storage.h"

#include <nlohmann/json.hpp>

#include <string_view>

namespace modelgw::usage {

nlohmann::json record_json(const plugins::UsageRow& row);
nlohmann::json sums_json(const plugins::UsageGroup& sums);
// A group's key as a client reads it: "2026-11-24" (day), "2026-11-24T10:00:00Z"
// (hour), the alias, the feature (null for none) or the key id.
nlohmann::json group_key_json(std::string_view group_by, const std::string& key);

}  // namespace modelgw::usage
