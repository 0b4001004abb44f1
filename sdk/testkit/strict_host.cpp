#include "strict_host.h"

#include "abi_sizes.h"
#include "findings.h"
#include "guarded_memory.h"
#include "text_rules.h"

#include <chrono>
#include <cstring>
#include <mutex>

namespace mgw::testkit {
namespace {

std::vector<std::string>& secrets() {
  static std::vector<std::string> s;
  return s;
}

constexpr std::size_t kMinSecret = 8;
// Larger than any text a plugin hands over in one call (1 GiB): a length
// beyond it is an unset field.
constexpr std::size_t kMaxStr = std::size_t{1} << 30;

std::size_t round8(std::size_t n) {
  return (n + 7) / 8 * 8;
}

}  // namespace

void add_secret(std::string_view secret) {
  if (secret.size() >= kMinSecret) secrets().emplace_back(secret);
}

void check_no_secret(std::string_view text, std::string_view what) {
  for (const auto& s : secrets()) {
    if (text.find(s) != std::string_view::npos) {
      problem(std::string(what) + " contains the configured api_key (or another configured secret)");
      return;
    }
  }
}

bool str_ok(mgw_str s, std::string_view what) {
  if (s.ptr == nullptr && s.len > 0) {
    problem(std::string(what) + " is an mgw_str with a NULL ptr and length " + std::to_string(s.len));
    return false;
  }
  if (s.len > kMaxStr) {
    problem(std::string(what) + " is an mgw_str of length " + std::to_string(s.len) +
            ": not a length but an unset field");
    return false;
  }
  return true;
}

std::string_view bytes(mgw_str s) {
  if (s.ptr == nullptr || s.len == 0 || s.len > kMaxStr) return {};
  return {s.ptr, s.len};
}

HostShape HostShape::current() {
  HostShape s;
  s.label = "this host (ABI " + std::to_string(MGW_ABI_MAJOR) + "." + std::to_string(MGW_ABI_MINOR) + ")";
  return s;
}

HostShape HostShape::abi_1_0() {
  HostShape s;
  s.label = "a " + std::to_string(MGW_ABI_MAJOR) + ".0 host";
  s.minor = 0;
  s.host_api_size = kHostApiSize10;
  s.call_context_size = kCallContextSize10;
  s.request_sink_size = kRequestSinkSize10;
  s.response_sink_size = kResponseSinkSize10;
  s.guarded = true;
  return s;
}

HostShape HostShape::newer_minor() {
  HostShape s;
  s.minor = MGW_ABI_MINOR + 1;
  s.label = "a newer host (ABI " + std::to_string(MGW_ABI_MAJOR) + "." + std::to_string(s.minor) + ")";
  // A later minor appends fields: 32 more bytes of each struct, zeroed.
  s.host_api_size = sizeof(mgw_host_api) + 32;
  s.call_context_size = sizeof(mgw_call_context) + 32;
  s.request_sink_size = sizeof(mgw_request_sink) + 32;
  s.response_sink_size = sizeof(mgw_response_sink) + 32;
  return s;
}

HostTable::HostTable(const HostShape& shape) {
  const std::size_t size = round8(std::max(shape.host_api_size, sizeof(mgw_host_api)));
  void* mem = nullptr;
  if (shape.guarded) {
    guarded_ = std::make_unique<GuardedBlock>(round8(shape.host_api_size));
    mem = guarded_->get();
  } else {
    plain_.assign(size, 0);
    mem = plain_.data();
  }
  api_ = static_cast<mgw_host_api*>(mem);
  api_->struct_size = static_cast<std::uint32_t>(shape.host_api_size);
  api_->abi_major = shape.major;
  api_->abi_minor = shape.minor;
  api_->host_data = this;
  api_->callback_log_enabled = [](void*, mgw_log_level) -> std::int32_t { return 1; };
  api_->callback_log = [](void* self, mgw_log_level level, mgw_str message) {
    auto* host = static_cast<HostTable*>(self);
    if (!str_ok(message, "callback_log's message")) return;
    if (level < MGW_LOG_TRACE || level > MGW_LOG_ERROR) {
      problem("callback_log with level " + std::to_string(level) + ", which is not an mgw_log_level");
    }
    const std::string_view text = bytes(message);
    check_no_secret(text, "a log line");
    std::lock_guard lock(host->mutex_);
    host->logs_.emplace_back(level, std::string(text));
  };
  api_->callback_now_unix_ms = [](void*) -> std::int64_t {
    using namespace std::chrono;
    return duration_cast<milliseconds>(system_clock::now().time_since_epoch()).count();
  };
  api_->callback_monotonic_ns = [](void*) -> std::int64_t {
    using namespace std::chrono;
    return duration_cast<nanoseconds>(steady_clock::now().time_since_epoch()).count();
  };
}

HostTable::~HostTable() = default;

HeaderOnlyHostTable::HeaderOnlyHostTable(std::uint16_t major)
    : block_(std::make_unique<GuardedBlock>(offsetof(mgw_host_api, host_data))) {
  auto* header = static_cast<unsigned char*>(block_->get());
  const std::uint32_t size = offsetof(mgw_host_api, host_data);
  const std::uint16_t minor = 0;
  std::memcpy(header + offsetof(mgw_host_api, struct_size), &size, sizeof size);
  std::memcpy(header + offsetof(mgw_host_api, abi_major), &major, sizeof major);
  std::memcpy(header + offsetof(mgw_host_api, abi_minor), &minor, sizeof minor);
}

HeaderOnlyHostTable::~HeaderOnlyHostTable() = default;

const mgw_host_api* HeaderOnlyHostTable::get() const {
  // Only the first three fields lie in readable memory.
  return static_cast<const mgw_host_api*>(block_->get());
}

}  // namespace mgw::testkit
