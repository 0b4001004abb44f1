// pii_guard_bench: what the PII step adds to one chat request, per mode.
// Runs pii::Guard::inspect (the gateway's own code: text walk, detector, the
// real mode plugins, the re-serialisation a mask forces) on a chat body of a
// given size, with and without planted values, and prints the median and p99
// per request. A benchmark program, not a test: CTest does not run it.
//
//   pii_guard_bench [--bytes 4096] [--seconds 1] [--plugin-dir DIR]
#include "pii/guard.h"
#include "plugins/pii_mode.h"
#include "plugins/plugin_library.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace {

using namespace modelgw;
using Clock = std::chrono::steady_clock;

const char* kProse =
    "Thanks for getting back to me so quickly. I tried the steps from your last message, but the export "
    "still stops halfway through and the progress bar never moves past forty percent. Could you check "
    "whether something on your side is holding the job, and tell me what I should try next? ";

// A chat body of about `bytes` of message text over a few messages; with
// `planted`, one email, phone and card number per kilobyte or so.
nlohmann::json chat_body(std::size_t bytes, bool planted) {
  nlohmann::json doc = {{"model", "gpt-4o-mini"}, {"messages", nlohmann::json::array()}};
  doc["messages"].push_back({{"role", "system"}, {"content", "You are a helpful support agent."}});
  std::string text;
  int n = 0;
  while (text.size() < bytes) {
    text += kProse;
    if (planted && ++n % 4 == 0) {
      text += "Reach me at user" + std::to_string(n) + "@example.com or +1 415 555 01" +
              std::to_string(10 + n % 90) + ", card 4111 1111 1111 1111. ";
    }
  }
  text.resize(bytes);
  doc["messages"].push_back({{"role", "user"}, {"content", text}});
  return doc;
}

struct Result {
  double median_us;
  double p99_us;
  std::size_t runs;
};

// How a run uses the guard's memory of clean texts (pii/clean_text_cache.h).
enum class Memory {
  none,       // no tenant: every text scanned
  same_text,  // a tenant sending the same text each time: remembered after the first
  new_text,   // a tenant sending a text of its own each time: hashed, scanned, kept
};

Result measure(const pii::Guard& guard, const pii::Policy& policy, const nlohmann::json& body, double seconds,
               Memory memory = Memory::none) {
  std::vector<double> us;
  const auto end = Clock::now() + std::chrono::duration<double>(seconds);
  while (Clock::now() < end && us.size() < 1'000'000) {
    nlohmann::json doc = body;  // copied outside the timed region: the gateway already holds it
    if (memory == Memory::new_text) {
      auto& text = doc["messages"].back()["content"].get_ref<std::string&>();
      const std::string n = std::to_string(us.size());
      text.replace(text.size() - n.size(), n.size(), n);
    }
    const pii::ScanMemory remember{memory == Memory::none ? 0 : 7};
    const auto t0 = Clock::now();
    const pii::Verdict v = guard.inspect(doc, policy, remember);
    if (v.changed) (void)doc.dump();  // a mask re-serialises the body
    us.push_back(std::chrono::duration<double, std::micro>(Clock::now() - t0).count());
  }
  std::sort(us.begin(), us.end());
  return {us[us.size() / 2], us[std::min(us.size() - 1, us.size() * 99 / 100)], us.size()};
}

}  // namespace

int main(int argc, char** argv) {
  std::size_t bytes = 4096;
  double seconds = 1.0;
  std::string plugin_dir = MODELGW_PLUGIN_DIR;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string a = argv[i];
    if (a == "--bytes") {
      bytes = static_cast<std::size_t>(std::strtoul(argv[i + 1], nullptr, 10));
    } else if (a == "--seconds") {
      seconds = std::strtod(argv[i + 1], nullptr);
    } else if (a == "--plugin-dir") {
      plugin_dir = argv[i + 1];
    } else {
      std::fprintf(stderr, "usage: pii_guard_bench [--bytes N] [--seconds S] [--plugin-dir DIR]\n");
      return 2;
    }
  }
  if (bytes == 0 || seconds <= 0) {
    std::fprintf(stderr, "--bytes and --seconds must be positive\n");
    return 2;
  }

  pii::Detector detector;
  std::map<std::string, std::unique_ptr<plugins::PiiMode>> modes;
  for (const char* m : {"block", "mask", "flag"}) {
    auto lib =
        plugins::PluginLibrary::load(plugins::resolve_plugin_path(plugin_dir, MGW_KIND_PII, m), MGW_KIND_PII);
    modes[m] = std::make_unique<plugins::PiiMode>(lib, m, nlohmann::json::object());
  }
  const pii::Guard guard(detector, modes);
  pii::PolicyDefaults defaults{"off", pii::CategorySet::default_critical(), {"block", "mask", "flag"}};

  std::printf("PII step per request, one thread, %zu bytes of message text, %.1f s per row\n", bytes,
              seconds);
  std::printf("%-6s %-10s %12s %12s %10s\n", "mode", "text", "median_us", "p99_us", "runs");
  for (bool planted : {false, true}) {
    const nlohmann::json body = chat_body(bytes, planted);
    for (const char* m : {"off", "flag", "block", "mask"}) {
      // Block with an empty critical set, so planted requests are scanned and
      // decided on but not refused: the cost of a request that goes through.
      const std::string settings =
          std::string(R"({"mode":")") + m + R"(")" + (std::string(m) == "block" ? R"(,"critical":[]})" : "}");
      const pii::Policy policy = pii::make_policy(defaults, nlohmann::json::parse(settings));
      const Result r = measure(guard, policy, body, seconds);
      std::printf("%-6s %-10s %12.2f %12.2f %10zu\n", m, planted ? "with PII" : "clean", r.median_us,
                  r.p99_us, r.runs);
    }
  }
  // A tenant's clean text, sent again (every next turn of a conversation
  // resends the earlier ones) and sent new each time (what remembering costs
  // when nothing is found again).
  const nlohmann::json clean = chat_body(bytes, false);
  const pii::Policy flag = pii::make_policy(defaults, nlohmann::json::parse(R"({"mode":"flag"})"));
  for (const auto& [label, memory] :
       {std::pair{"again", Memory::same_text}, std::pair{"new", Memory::new_text}}) {
    const Result r = measure(guard, flag, clean, seconds, memory);
    std::printf("%-6s %-10s %12.2f %12.2f %10zu\n", "flag", (std::string("clean, ") + label).c_str(),
                r.median_us, r.p99_us, r.runs);
  }
  return 0;
}
