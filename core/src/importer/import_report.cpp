#include "importer/import_report.h"

#include <algorithm>
#include <sstream>

namespace modelgw::importer {

std::string_view status_name(RowStatus status) {
  switch (status) {
    case RowStatus::imported:
      return "imported";
    case RowStatus::approximated:
      return "approximated";
    case RowStatus::by_hand:
      return "by hand";
    case RowStatus::unsupported:
      return "unsupported";
  }
  return "unsupported";
}

std::string format_report(const std::vector<ReportRow>& rows) {
  constexpr std::size_t kMaxSettingWidth = 56;
  std::size_t setting_width = std::string_view("SETTING").size();
  for (const auto& r : rows)
    setting_width = std::max(setting_width, std::min(r.setting.size(), kMaxSettingWidth));
  const std::size_t status_width = std::string_view("approximated").size();
  auto pad = [](std::string text, std::size_t width) {
    if (text.size() < width) text.append(width - text.size(), ' ');
    return text;
  };
  std::ostringstream out;
  out << pad("SETTING", setting_width) << "  " << pad("STATUS", status_width) << "  DETAIL\n";
  const std::string indent(setting_width + status_width + 4, ' ');
  for (const auto& r : rows) {
    out << pad(r.setting, setting_width) << "  " << pad(std::string(status_name(r.status)), status_width)
        << "  ";
    std::size_t start = 0;
    for (;;) {
      const auto end = r.detail.find('\n', start);
      out << r.detail.substr(start, end == std::string::npos ? std::string::npos : end - start) << "\n";
      if (end == std::string::npos) break;
      out << indent;
      start = end + 1;
    }
  }
  return out.str();
}

}  // namespace modelgw::importer
