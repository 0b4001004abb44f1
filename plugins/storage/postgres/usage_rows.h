// What usage.cpp and usage_query.cpp share: the columns of a usage record,
// in the order emit_usage() reads them, and the rollups' bucket width.
#pragma once

#include <modelgw/plugin.h>

#include <cstdint>

#include <pqxx/pqxx>

#include "usage_columns.h"

namespace mgw_pg {

// The hourly rollups' bucket width.
inline constexpr std::int64_t kHourMs = 3'600'000;

// Every row (MGW_USAGE_SELECT_COLUMNS) to the sink's callback_usage.
void emit_usage(const pqxx::result& rows, const mgw_row_sink* out);

}  // namespace mgw_pg
