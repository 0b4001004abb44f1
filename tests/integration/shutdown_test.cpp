// SIGTERM ends the process promptly however the connections arrived: the
// HTTP server must not wait out an idle timeout before it can exit.
#include "harness/checks.h"
#include "harness/http_client.h"
#include "harness/stack.h"

#include <csignal>
#include <thread>
#include <vector>

namespace it {
namespace {

using namespace std::chrono_literals;

TEST(ShutdownTest, SigtermAfterConcurrentConnectionsExitsWithinThreeSeconds) {
  auto stack = start_stack();
  // Connections that arrive together make the server run several dispatcher
  // threads; every one of them must notice the stop.
  for (int round = 0; round < 3; ++round) {
    std::vector<std::thread> clients;
    for (int i = 0; i < 8; ++i) {
      clients.emplace_back(
          [&stack] { post_chat(stack->port(), stack->key.key, R"({"model":"gpt-4o-mini","messages":[)"); });
    }
    for (auto& t : clients) t.join();
  }
  const auto started = std::chrono::steady_clock::now();
  stack->gateway->send_signal(SIGTERM);
  const auto code = stack->gateway->wait_exit(3s);
  ASSERT_TRUE(code.has_value()) << "modelgw was still running 3 s after SIGTERM with no request in flight";
  EXPECT_EQ(*code, 0);
  EXPECT_LT(std::chrono::steady_clock::now() - started, 3s);
}

}  // namespace
}  // namespace it
