#include "harness/fake_upstream.h"

#include "harness/http_client.h"

#include <stdexcept>

namespace it {

using namespace std::chrono_literals;

FakeUpstream::FakeUpstream(const std::string& api_key) {
  process_ = std::make_unique<ChildProcess>(
      FAKE_UPSTREAM_BIN,
      std::vector<std::string>{"--port", "0", "--api-key", api_key, "--threads", "64", "--log-size", "1000"});
  const auto& out = process_->stdout_drain();
  if (!out.wait_for("\n", 20s)) {
    process_->stop(2s);
    throw std::runtime_error("fake_upstream did not print LISTENING; stderr: " + process_->err());
  }
  const std::string line = out.text();
  const std::string prefix = "LISTENING ";
  if (line.rfind(prefix, 0) != 0) {
    process_->stop(2s);
    throw std::runtime_error("fake_upstream printed '" + line + "' instead of LISTENING <port>");
  }
  port_ = std::stoi(line.substr(prefix.size()));
}

FakeUpstream::~FakeUpstream() {
  stop();
}

int FakeUpstream::stop() {
  return process_ ? process_->stop(5s) : -1;
}

nlohmann::json FakeUpstream::requests() const {
  auto r = http_get(port_, "/_fake/requests");
  if (r.status != 200) throw std::runtime_error("GET /_fake/requests answered " + std::to_string(r.status));
  return nlohmann::json::parse(r.body);
}

nlohmann::json FakeUpstream::find_request(const std::string& marker) const {
  const auto all = requests();
  for (auto it = all.rbegin(); it != all.rend(); ++it) {
    if ((*it)["body"].dump().find(marker) != std::string::npos) return *it;
  }
  return nullptr;
}

}  // namespace it
