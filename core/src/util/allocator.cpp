#include "util/allocator.h"

#include <dlfcn.h>

#include <cstddef>
#include <string_view>

namespace modelgw::util {

std::string allocator_name() {
  // jemalloc's control interface; absent from glibc and the sanitizers.
  using Mallctl = int (*)(const char*, void*, std::size_t*, void*, std::size_t);
  auto* mallctl = reinterpret_cast<Mallctl>(dlsym(RTLD_DEFAULT, "mallctl"));
  if (mallctl == nullptr) return "libc malloc";
  const char* version = nullptr;
  std::size_t size = sizeof version;
  if (mallctl("version", static_cast<void*>(&version), &size, nullptr, 0) != 0 || version == nullptr)
    return "jemalloc";
  // "5.3.0-0-g54eaed1d8b56b1aa528be3bdd1877e59c56fa90c": the release, not the commit.
  const std::string_view v(version);
  return "jemalloc " + std::string(v.substr(0, v.find('-')));
}

}  // namespace modelgw::util
