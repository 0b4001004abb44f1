// `modelgw import litellm`: a LiteLLM proxy config.yaml in, a modelgw
// configuration and a report out. A pure function of its input: it reads no
// file and no environment, and no secret of the input reaches its output
// (literal keys become ${VAR} references the report tells the operator to set).
#pragma once

#include "importer/import_report.h"

#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace modelgw::importer {

struct ImportOptions {
  std::string source_name = "config.yaml";               // named in the written file's first comment
  std::string plugins_dir = "/usr/lib/modelgw/plugins";  // the packages' plugin folder
  std::string state_dir = "/var/lib/modelgw";  // the SQLite store and journals (the packages' state folder)
};

struct ImportResult {
  std::string config_yaml;  // passes `modelgw check-config` (given the ${VAR}s the report names)
  std::vector<ReportRow> rows;
};

// The input is not a LiteLLM config, or holds nothing modelgw can serve. The
// message quotes at most a short prefix of the input; `rows` holds what was
// found before giving up (possibly nothing).
class ImportError : public std::runtime_error {
 public:
  explicit ImportError(const std::string& message, std::vector<ReportRow> found = {})
      : std::runtime_error(message), rows(std::move(found)) {}
  std::vector<ReportRow> rows;
};

ImportResult import_litellm(std::string_view litellm_yaml, const ImportOptions& options = {});

}  // namespace modelgw::importer
