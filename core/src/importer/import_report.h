// The report `modelgw import` prints: one row per setting of the imported
// file, saying what became of it.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace modelgw::importer {

enum class RowStatus {
  imported,      // the modelgw config does the same
  approximated,  // the config does something close; the row says how it differs
  by_hand,       // the operator runs the command the row gives (keys, budgets, environment)
  unsupported,   // modelgw has no equivalent; the row says why
};

struct ReportRow {
  std::string setting;  // where in the imported file, e.g. "router_settings.num_retries"
  RowStatus status = RowStatus::imported;
  std::string detail;
};

// "imported", "approximated", "by hand", "unsupported".
std::string_view status_name(RowStatus status);

// An aligned table: a header line, then one line per row (setting, status,
// detail). A detail of several lines continues under the detail column.
std::string format_report(const std::vector<ReportRow>& rows);

}  // namespace modelgw::importer
