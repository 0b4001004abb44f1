#include "harness/stack.h"

namespace it {

std::unique_ptr<Stack> start_stack(GatewayOptions options) {
  auto stack = std::make_unique<Stack>();
  stack->fake = std::make_unique<FakeUpstream>(kProviderKey);
  options.upstream_port = stack->fake->port();
  stack->gateway = std::make_unique<Gateway>(std::move(options));
  stack->gateway->create_tenant("acme");
  stack->key = stack->gateway->create_key("acme");
  stack->gateway->start();
  return stack;
}

int upstream_calls(const Stack& stack, const std::string& marker) {
  int n = 0;
  for (const auto& r : stack.fake->requests()) n += r["body"].dump().find(marker) != std::string::npos;
  return n;
}

}  // namespace it
