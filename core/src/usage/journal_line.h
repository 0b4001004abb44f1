// One usage record as one line of the local journal (usage_journal.h): a JSON
// object on one line (JSON escapes every newline inside strings), holding
// every field storage needs, the ledger charges included.
#pragma once

#include "plugins/storage.h"

#include <optional>
#include <string>
#include <string_view>

namespace modelgw::usage {

// Appends the record and a '\n' to `out`.
void append_journal_line(const plugins::UsageRow& row, std::string& out);
// The record a line holds; nullopt for a line that is not one (a write torn
// by a crash, or a file edited by hand).
std::optional<plugins::UsageRow> parse_journal_line(std::string_view line);

}  // namespace modelgw::usage
