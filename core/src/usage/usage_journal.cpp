#include "usage/usage_journal.h"

#include "usage/journal_line.h"

#include <string_view>

namespace modelgw::usage {

UsageJournal::UsageJournal(std::string path) : file_(std::move(path), "usage journal", "usage.journal_path") {
  if (file_.bytes() == 0) return;
  std::string why;
  file_.read_lines(
      [&](std::string_view line) {
        if (!line.empty()) ++records_;
        return true;
      },
      why);
}

bool UsageJournal::append(const std::vector<plugins::UsageRow>& rows, std::string& why) {
  if (rows.empty()) return true;
  std::string text;
  text.reserve(rows.size() * 512);
  for (const auto& r : rows) append_journal_line(r, text);
  // On failure the batch is kept in memory and appended again later, whole.
  if (!file_.append(text, why)) return false;
  records_ += rows.size();
  return true;
}

bool UsageJournal::replay(std::size_t batch,
                          const std::function<bool(const std::vector<plugins::UsageRow>&)>& store,
                          std::uint64_t& replayed, std::uint64_t& skipped, std::string& why) {
  replayed = 0;
  skipped = 0;
  if (records_ == 0 && file_.bytes() == 0) return true;
  std::vector<plugins::UsageRow> rows;
  bool refused = false;
  auto flush = [&] {
    if (rows.empty()) return true;
    bool ok = false;
    try {
      ok = store(rows);
    } catch (const std::exception& e) {
      why = e.what();
    }
    if (!ok) {
      refused = true;
      return false;
    }
    replayed += rows.size();
    rows.clear();
    return true;
  };
  const bool read = file_.read_lines(
      [&](std::string_view line) {
        if (line.empty()) return true;
        if (auto row = parse_journal_line(line)) {
          rows.push_back(std::move(*row));
        } else {
          ++skipped;
        }
        return rows.size() < batch || flush();
      },
      why);
  if (!read || refused || !flush()) return false;
  if (!file_.clear(why)) return false;
  records_ = 0;
  return true;
}

}  // namespace modelgw::usage
