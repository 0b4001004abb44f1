// The fake OpenAI vendor (tests/fake_upstream), started on a free port.
#pragma once

#include "harness/process.h"

#include <nlohmann/json.hpp>

#include <memory>
#include <string>

namespace it {

class FakeUpstream {
 public:
  explicit FakeUpstream(const std::string& api_key);
  ~FakeUpstream();

  int port() const { return port_; }
  int pid() const { return process_ ? process_->pid() : 0; }
  // GET /_fake/requests: what the gateway sent, oldest first.
  nlohmann::json requests() const;
  // The last recorded request whose body mentions `marker` (null if none).
  nlohmann::json find_request(const std::string& marker) const;
  int stop();

 private:
  std::unique_ptr<ChildProcess> process_;
  int port_ = 0;
};

}  // namespace it
