// Memory is bounded by design: a request in flight costs a small multiple of
// its body. The old engine held about 130 MB per 4 MiB request in flight
// (three parses, several copies, and glibc keeping what was freed); the
// target is under 3x, measured at 16 concurrent 4 MiB bodies.
#include "harness/checks.h"
#include "harness/http_client.h"
#include "harness/stack.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

namespace it {
namespace {

using namespace std::chrono_literals;

// VmRSS of `pid`, in bytes (0 when it cannot be read).
std::int64_t rss_bytes(int pid) {
  std::ifstream status("/proc/" + std::to_string(pid) + "/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.rfind("VmRSS:", 0) == 0) return std::stoll(line.substr(6)) * 1024;
  }
  return 0;
}

TEST(MemoryBoundsTest, SixteenConcurrentFourMebibyteBodiesCostUnderFourTimesTheirSize) {
#if defined(__SANITIZE_ADDRESS__)
  // AddressSanitizer keeps freed memory in quarantine (256 MB by default):
  // RSS says nothing about the gateway's own bound there.
  GTEST_SKIP() << "RSS is not meaningful under AddressSanitizer; the release build runs this test";
#endif
  constexpr int kConcurrent = 16;
  constexpr std::size_t kBody = 4 * 1024 * 1024;
  GatewayOptions options;
  options.max_body_bytes = kBody + 4096;
  options.timeout_ms = 20000;  // the fake upstream reads 16 large bodies at once: slow on a busy machine
  // A model with a window a 4 MiB prompt fits in (gpt-4o-mini's 128k does not).
  options.extra_catalog_yaml =
      "  big-window: { provider: openai, model: \"gpt-4o-mini\", context_window: 2000000 }\n";
  auto stack = start_stack(options);
  const int pid = stack->gateway->pid();
  ASSERT_GT(pid, 0);

  std::string text;
  text.reserve(kBody);
  while (text.size() + 32 < kBody - 256) text += " international";
  const std::string body = chat_body("big-window", text);
  ASSERT_LE(body.size(), kBody);
  const auto warm = post_chat(stack->port(), stack->key.key, body);  // warm: pools, caches, arenas
  ASSERT_EQ(warm.status, 200) << warm.body.substr(0, 400);

  const std::int64_t before = rss_bytes(pid);
  std::atomic<bool> done{false};
  std::atomic<std::int64_t> peak{before};
  std::thread sampler([&] {
    const auto until = std::chrono::steady_clock::now() + 60s;
    while (!done.load() && std::chrono::steady_clock::now() < until) {
      const std::int64_t now = rss_bytes(pid);
      if (now > peak.load()) peak.store(now);
      std::this_thread::sleep_for(2ms);
    }
  });
  std::vector<int> statuses(kConcurrent, 0);
  std::vector<std::thread> clients;
  for (int i = 0; i < kConcurrent; ++i) {
    clients.emplace_back([&, i] { statuses[i] = post_chat(stack->port(), stack->key.key, body).status; });
  }
  for (auto& c : clients) c.join();
  done.store(true);
  sampler.join();

  for (int s : statuses) EXPECT_EQ(s, 200);
  const double in_flight = static_cast<double>(kConcurrent) * static_cast<double>(body.size());
  const double ratio = static_cast<double>(peak.load() - before) / in_flight;
  RecordProperty("peak_growth_ratio", std::to_string(ratio));
  // 3x is the design target (about 2.8x measured); 4x leaves room for a
  // noisy machine, and still fails the old engine's 30x by far.
  EXPECT_LT(ratio, 4.0) << "peak RSS grew " << (peak.load() - before) / (1024 * 1024) << " MiB for "
                        << static_cast<std::int64_t>(in_flight) / (1024 * 1024) << " MiB of bodies in flight";
  // What was taken is given back: large buffers are not kept after the burst.
  std::this_thread::sleep_for(200ms);
  EXPECT_LT(static_cast<double>(rss_bytes(pid) - before), in_flight) << "memory kept after the burst";
}

}  // namespace
}  // namespace it
