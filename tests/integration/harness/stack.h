// The usual test setup: a fake upstream, a gateway in front of it with the
// standard catalog, tenant "acme" and one chat key; and a fixture base that
// shares one such stack across a whole test suite.
#pragma once

#include "harness/fake_upstream.h"
#include "harness/gateway.h"
#include "harness/usage_db.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>

namespace it {

struct Stack {
  std::unique_ptr<FakeUpstream> fake;
  std::unique_ptr<Gateway> gateway;
  Gateway::Key key;  // tenant "acme", scope chat

  int port() const { return gateway->port(); }
  UsageDb usage() const { return UsageDb(gateway->db_path()); }
};

// Starts everything; the gateway is serving when this returns. Throws on failure.
std::unique_ptr<Stack> start_stack(GatewayOptions options = {});

// Requests the stack's fake upstream received whose body mentions `marker`.
int upstream_calls(const Stack& stack, const std::string& marker);

// One stack per test suite: `class MyTest : public SharedStackTest<MyTest> {};`
// A suite whose stack needs other options declares its own
// `static GatewayOptions stack_options()`.
template <typename Suite>
class SharedStackTest : public ::testing::Test {
 public:
  static GatewayOptions stack_options() { return {}; }

  static void SetUpTestSuite() {
    try {
      stack_ = start_stack(Suite::stack_options());
    } catch (const std::exception& e) {
      setup_error_ = e.what();
    }
  }
  static void TearDownTestSuite() { stack_.reset(); }

 protected:
  void SetUp() override { ASSERT_NE(stack_, nullptr) << "suite setup failed: " << setup_error_; }

  static Stack& stack() { return *stack_; }
  static int port() { return stack_->port(); }
  static const std::string& key() { return stack_->key.key; }

  static inline std::unique_ptr<Stack> stack_;
  static inline std::string setup_error_;
};

}  // namespace it
