#include "lent_bytes.h"

#include <cstring>

namespace mgw::testkit {

// 0xA5 is no ASCII character and starts no UTF-8 sequence: what a plugin
// reads through a kept pointer is neither JSON nor text.
constexpr unsigned char kPoison = 0xA5;

LentBytes::LentBytes(std::string_view s) : size_(s.size()) {
  if (s.empty()) return;
  data_ = std::make_unique<char[]>(s.size());
  std::memcpy(data_.get(), s.data(), s.size());
}

LentBytes::~LentBytes() {
  if (data_) std::memset(data_.get(), kPoison, size_);
}

}  // namespace mgw::testkit
