#pragma once

#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace modelgw::cli {

class UsageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// "--name value" / "--name=value" options and positional words, in order.
struct Arguments {
  std::vector<std::string> words;
  std::map<std::string, std::string> options;

  static Arguments parse(int argc, char** argv, int first);
  std::optional<std::string> option(const std::string& name) const;
  std::string word(std::size_t i, const char* what) const;  // throws UsageError naming `what`
};

}  // namespace modelgw::cli
