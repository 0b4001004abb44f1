#include "cli/arguments.h"

namespace modelgw::cli {

Arguments Arguments::parse(int argc, char** argv, int first) {
  Arguments a;
  for (int i = first; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg.rfind("--", 0) == 0 && arg.size() > 2) {
      auto eq = arg.find('=');
      if (eq != std::string::npos) {
        a.options[arg.substr(2, eq - 2)] = arg.substr(eq + 1);
      } else if (i + 1 < argc) {
        a.options[arg.substr(2)] = argv[++i];
      } else {
        throw UsageError(arg + " needs a value");
      }
    } else {
      a.words.push_back(std::move(arg));
    }
  }
  return a;
}

std::optional<std::string> Arguments::option(const std::string& name) const {
  auto it = options.find(name);
  if (it == options.end()) return std::nullopt;
  return it->second;
}

std::string Arguments::word(std::size_t i, const char* what) const {
  if (i >= words.size()) throw UsageError(std::string("missing ") + what);
  return words[i];
}

}  // namespace modelgw::cli
