// modelgw-plugin-conformance: checks that a provider plugin keeps the
// promises of the modelgw plugin ABI. See README.md.
#include "checks.h"
#include "findings.h"
#include "isolation.h"
#include "strict_host.h"

#include <dlfcn.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstdlib>
#include <iostream>
#include <optional>
#include <string>
#include <vector>

namespace {

using namespace mgw::testkit;

constexpr const char* kUsage =
    "usage: modelgw-plugin-conformance <plugin.so> <fixtures dir> [options]\n"
    "\n"
    "  --config <json|file>   the provider block on_provider_new gets (default: <fixtures>/config.json)\n"
    "  --only <prefix>        run only the checks whose name starts with <prefix> (repeatable)\n"
    "  --list                 list the checks and exit\n"
    "  --write-expected       write a missing streams/NAME.expected.jsonl from the plugin's output\n"
    "  --timeout <seconds>    the most one check may take (default 300)\n"
    "  --max-split-bytes <n>  split streams up to n bytes at every byte (default 16384)\n"
    "  --verbose              also print notes\n"
    "\n"
    "Exit status: 0 when every check passed, 1 when one failed, 2 when the run could not start.\n";

struct Args {
  std::string plugin;
  std::string fixtures;
  std::optional<std::string> config;
  std::vector<std::string> only;
  bool list = false;
  bool write_expected = false;
  bool verbose = false;
  long timeout_s = 300;
  std::size_t max_split_bytes = 16384;
};

std::optional<Args> parse_args(int argc, char** argv) {
  Args a;
  std::vector<std::string> positional;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    const auto value = [&]() -> std::optional<std::string> {
      if (i + 1 >= argc) return std::nullopt;
      return std::string(argv[++i]);
    };
    if (arg == "--config") {
      a.config = value();
      if (!a.config) return std::nullopt;
    } else if (arg == "--only") {
      const auto v = value();
      if (!v) return std::nullopt;
      a.only.push_back(*v);
    } else if (arg == "--list") {
      a.list = true;
    } else if (arg == "--write-expected") {
      a.write_expected = true;
    } else if (arg == "--verbose") {
      a.verbose = true;
    } else if (arg == "--timeout" || arg == "--max-split-bytes") {
      const auto v = value();
      if (!v || v->empty() || !std::all_of(v->begin(), v->end(), ::isdigit)) return std::nullopt;
      if (arg == "--timeout") {
        a.timeout_s = std::stol(*v);
      } else {
        a.max_split_bytes = std::stoul(*v);
      }
    } else if (arg == "-h" || arg == "--help") {
      return std::nullopt;
    } else if (!arg.empty() && arg[0] == '-') {
      std::cerr << "unknown option " << arg << "\n";
      return std::nullopt;
    } else {
      positional.push_back(arg);
    }
  }
  if (positional.size() != 2) return std::nullopt;
  a.plugin = positional[0];
  a.fixtures = positional[1];
  return a;
}

// Top-level string members of the provider block that name a credential:
// no output of the plugin may hold them.
void register_secrets(const std::string& config) {
  const auto j = parse_json(config);
  if (!j || !j->is_object()) return;
  for (const auto& [key, value] : j->items()) {
    std::string k = key;
    std::transform(k.begin(), k.end(), k.begin(), [](unsigned char c) { return std::tolower(c); });
    const bool credential = k.find("key") != std::string::npos || k.find("secret") != std::string::npos ||
                            k.find("token") != std::string::npos || k.find("password") != std::string::npos;
    if (credential && value.is_string()) add_secret(value.get<std::string>());
  }
}

bool selected(const Args& a, const std::string& name) {
  if (a.only.empty()) return true;
  return std::any_of(a.only.begin(), a.only.end(),
                     [&](const std::string& p) { return name.rfind(p, 0) == 0; });
}

void print_result(const std::string& name, const CheckResult& r, bool verbose) {
  const char* verdict = r.verdict == CheckResult::Verdict::pass ? "PASS" : "FAIL";
  std::cout << verdict << "  " << name << "\n";
  if (!r.death.empty()) std::cout << "      - " << r.death << "\n";
  for (const auto& p : r.problems) std::cout << "      - " << p << "\n";
  if (r.problem_count > r.problems.size()) {
    std::cout << "      ... and " << (r.problem_count - r.problems.size()) << " more problems\n";
  }
  if (verbose) {
    for (const auto& n : r.notes) std::cout << "      note: " << n << "\n";
  }
}

}  // namespace

int main(int argc, char** argv) {
  const auto args = parse_args(argc, argv);
  if (!args) {
    std::cerr << kUsage;
    return 2;
  }
  RunContext ctx;
  ctx.fixtures = args->fixtures;
  ctx.write_expected = args->write_expected;
  ctx.max_split_bytes = std::max<std::size_t>(args->max_split_bytes, 1);
  try {
    ctx.settings = load_settings(ctx.fixtures, args->config);
  } catch (const std::exception& e) {
    std::cerr << "cannot read the fixtures: " << e.what() << "\n";
    return 2;
  }
  register_secrets(ctx.settings.provider_config);

  const auto checks = all_checks(ctx);
  if (args->list) {
    for (const auto& c : checks) std::cout << c.name << "  " << c.summary << "\n";
    return 0;
  }

  // Loaded once here; each check's process calls the entry symbol afresh.
  void* lib = dlopen(args->plugin.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (lib == nullptr) {
    std::cout << "FAIL  handshake.load\n      - " << dlerror() << "\n";
    return 1;
  }
  void* sym = dlsym(lib, MGW_ENTRY_SYMBOL);
  if (sym == nullptr) {
    std::cout << "FAIL  handshake.entry_symbol\n      - " << args->plugin
              << " does not export " MGW_ENTRY_SYMBOL ": it is not a modelgw plugin\n";
    return 1;
  }
  std::cout << "PASS  handshake.entry_symbol\n";
  ctx.entry = reinterpret_cast<mgw_plugin_entry_fn>(sym);

  int passed = 1;
  int failed = 0;
  const auto started = std::chrono::steady_clock::now();
  for (const auto& check : checks) {
    if (!selected(*args, check.name)) continue;
    const CheckResult r = run_isolated([&] { check.run(ctx); }, std::chrono::seconds(args->timeout_s));
    print_result(check.name, r, args->verbose);
    (r.verdict == CheckResult::Verdict::pass ? passed : failed) += 1;
  }
  const auto seconds =
      std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - started)
          .count() /
      1000.0;
  std::cout << "\n" << passed << " passed, " << failed << " failed (" << seconds << " s)\n";
  return failed == 0 ? 0 : 1;
}
