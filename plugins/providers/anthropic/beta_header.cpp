#include "beta_header.h"

#include <modelgw/provider/ascii.hpp>

#include <unordered_set>
#include <vector>

namespace mgw::anthropic {

namespace {

void add_beta_names(std::string_view list, std::vector<std::string_view>& names,
                    std::unordered_set<std::string_view>& seen) {
  while (!list.empty()) {
    const std::size_t comma = list.find(',');
    const std::string_view name = provider::trim_ows(list.substr(0, comma));
    if (!name.empty() && seen.insert(name).second) {
      names.push_back(name);
    }
    list = comma == std::string_view::npos ? std::string_view{} : list.substr(comma + 1);
  }
}

}  // namespace

std::string merged_beta(std::string_view configured, std::string_view client) {
  std::vector<std::string_view> names;
  std::unordered_set<std::string_view> seen;
  add_beta_names(configured, names, seen);
  add_beta_names(client, names, seen);
  std::string out;
  for (std::string_view n : names) {
    out += out.empty() ? "" : ",";
    out += n;
  }
  return out;
}

}  // namespace mgw::anthropic
