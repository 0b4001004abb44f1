// Bytes the host lends a plugin for one call. Each loan is a private copy,
// overwritten and freed when the call returns: a plugin that kept a pointer
// into it (instead of copying, as the ABI's memory rules say) reads garbage
// that shows in its output, or is caught by AddressSanitizer.
#pragma once

#include <modelgw/plugin.h>

#include <cstddef>
#include <memory>
#include <string_view>

namespace mgw::testkit {

class LentBytes {
 public:
  explicit LentBytes(std::string_view s);
  ~LentBytes();
  LentBytes(const LentBytes&) = delete;
  LentBytes& operator=(const LentBytes&) = delete;

  // {NULL, 0} for an empty loan: the ABI allows a NULL ptr with len 0.
  mgw_str str() const { return mgw_str{data_.get(), size_}; }
  const char* data() const { return data_.get(); }

 private:
  std::unique_ptr<char[]> data_;
  std::size_t size_ = 0;
};

}  // namespace mgw::testkit
