#include "util/thread_name.h"

#include <pthread.h>

#include <array>
#include <cstddef>

namespace modelgw::util {
namespace {

constexpr std::size_t kMaxName = 15;  // the kernel's TASK_COMM_LEN, less the NUL

}  // namespace

void set_thread_name(std::string_view name) {
  std::array<char, kMaxName + 1> buffer{};
  name.copy(buffer.data(), kMaxName);
  (void)pthread_setname_np(pthread_self(), buffer.data());
}

std::string thread_name() {
  std::array<char, kMaxName + 1> buffer{};
  if (pthread_getname_np(pthread_self(), buffer.data(), buffer.size()) != 0) return {};
  return buffer.data();
}

}  // namespace modelgw::util
