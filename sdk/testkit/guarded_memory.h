// Memory that ends at an unreadable page: a struct placed here with the size
// an older ABI version gave it faults when a plugin reads a field that
// version did not have, instead of silently reading whatever follows.
#pragma once

#include <cstddef>

namespace mgw::testkit {

class GuardedBlock {
 public:
  // `size` bytes, 8-aligned, whose last byte is followed by a PROT_NONE page.
  explicit GuardedBlock(std::size_t size);
  ~GuardedBlock();
  GuardedBlock(const GuardedBlock&) = delete;
  GuardedBlock& operator=(const GuardedBlock&) = delete;

  void* get() const { return data_; }
  std::size_t size() const { return size_; }

 private:
  void* mapping_ = nullptr;
  std::size_t mapping_size_ = 0;
  void* data_ = nullptr;
  std::size_t size_ = 0;
};

}  // namespace mgw::testkit
