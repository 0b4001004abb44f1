// Writes an import's Draft as a modelgw configuration file's text.
#pragma once

#include "importer/modelgw_draft.h"

#include <cstdint>
#include <string>
#include <string_view>

namespace modelgw::importer {

// A double-quoted YAML scalar. `env_text`: the value is meant to hold ${VAR}
// references; otherwise every "${" is escaped as "$${" so modelgw reads it
// literally.
std::string yaml_string(std::string_view value, bool env_text = false);

// Micro-USD as a decimal number of USD: 2500000 -> "2.5", 0 -> "0".
std::string usd_text(std::int64_t micros);

// The whole file; `source_name` is named in its opening comment.
std::string write_modelgw_yaml(const Draft& draft, std::string_view source_name);

}  // namespace modelgw::importer
