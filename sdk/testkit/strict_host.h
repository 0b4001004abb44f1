// The host table of a strict fake host: it records the plugin's log lines and
// reports a log line that holds a configured secret. A table can claim any
// ABI version and size, to show a plugin the host of another version.
#pragma once

#include <modelgw/plugin.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace mgw::testkit {

class GuardedBlock;

// Strings no plugin output may contain: the configured api_key and the like.
// Values shorter than 8 bytes are not tracked (they would match by chance).
void add_secret(std::string_view secret);
// Reports a problem when `text` holds a secret; `what` names the text.
void check_no_secret(std::string_view text, std::string_view what);

// False (and a problem) when `s` has a NULL ptr with a non-zero length.
bool str_ok(mgw_str s, std::string_view what);
// The bytes of an mgw_str the plugin passed, or empty when str_ok fails.
std::string_view bytes(mgw_str s);

// Which host the plugin sees.
struct HostShape {
  std::string label;  // e.g. "a 1.0 host"
  std::uint16_t major = MGW_ABI_MAJOR;
  std::uint16_t minor = MGW_ABI_MINOR;
  std::size_t host_api_size = sizeof(mgw_host_api);
  std::size_t call_context_size = sizeof(mgw_call_context);
  std::size_t request_sink_size = sizeof(mgw_request_sink);
  std::size_t response_sink_size = sizeof(mgw_response_sink);
  // Host structs end at an unreadable page, so reading past struct_size faults.
  bool guarded = false;

  static HostShape current();
  static HostShape abi_1_0();      // every struct as 1.0 had it
  static HostShape newer_minor();  // a later minor: every struct larger than this SDK knows
};

class HostTable {
 public:
  explicit HostTable(const HostShape& shape);
  ~HostTable();
  HostTable(const HostTable&) = delete;
  HostTable& operator=(const HostTable&) = delete;

  const mgw_host_api* get() const { return api_; }
  std::vector<std::pair<mgw_log_level, std::string>> logs() const {
    std::lock_guard lock(mutex_);
    return logs_;
  }

 private:
  mutable std::mutex mutex_;  // host-table callbacks may come from any thread
  std::unique_ptr<GuardedBlock> guarded_;
  std::vector<unsigned char> plain_;
  mgw_host_api* api_ = nullptr;
  std::vector<std::pair<mgw_log_level, std::string>> logs_;
};

// A host table of another major that holds only the version header
// (struct_size, abi_major, abi_minor) and ends at an unreadable page: what a
// plugin may read of a host it must refuse.
class HeaderOnlyHostTable {
 public:
  explicit HeaderOnlyHostTable(std::uint16_t major);
  ~HeaderOnlyHostTable();
  const mgw_host_api* get() const;

 private:
  std::unique_ptr<GuardedBlock> block_;
};

}  // namespace mgw::testkit
