#include "guarded_memory.h"

#include <sys/mman.h>
#include <unistd.h>

#include <cstring>
#include <stdexcept>

namespace mgw::testkit {

GuardedBlock::GuardedBlock(std::size_t size) : size_(size) {
  if (size % 8 != 0) throw std::invalid_argument("GuardedBlock: the size must be a multiple of 8");
  const auto page = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
  const std::size_t data_pages = (size + page - 1) / page;
  mapping_size_ = (data_pages + 1) * page;
  mapping_ = ::mmap(nullptr, mapping_size_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (mapping_ == MAP_FAILED) throw std::runtime_error("GuardedBlock: mmap failed");
  char* guard = static_cast<char*>(mapping_) + data_pages * page;
  if (::mprotect(guard, page, PROT_NONE) != 0) {
    ::munmap(mapping_, mapping_size_);
    throw std::runtime_error("GuardedBlock: mprotect failed");
  }
  data_ = guard - size;
  std::memset(data_, 0, size);
}

GuardedBlock::~GuardedBlock() {
  ::munmap(mapping_, mapping_size_);
}

}  // namespace mgw::testkit
