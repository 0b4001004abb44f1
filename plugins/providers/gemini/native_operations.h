// The APIs besides chat this provider serves natively (ABI 1.11,
// on_provider_operations): the config key `native_operations`.
#pragma once

#include <modelgw/provider/json.hpp>

#include <string>
#include <vector>

namespace mgw::gemini {

// Reads the optional `native_operations` (an array of operation names, each
// one of MGW_OPERATION_EMBEDDINGS and MGW_OPERATION_COUNT_TOKENS; a name
// given twice counts once) into `out`. Absent or null: both. Returns false,
// with `error` set to "native_operations…: <problem>", for another type or an
// unknown name (quoted as a short printable prefix).
bool read_native_operations(const provider::Json& cfg, std::vector<std::string>& out, std::string& error);

}  // namespace mgw::gemini
