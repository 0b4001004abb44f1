#include "util/thread_random.h"

#include <openssl/rand.h>

#include <array>
#include <cstdint>

namespace modelgw::util {

std::mt19937_64& thread_random() {
  thread_local std::mt19937_64 gen = [] {
    std::array<std::uint64_t, 4> seed{};
    if (RAND_bytes(reinterpret_cast<unsigned char*>(seed.data()), sizeof seed) != 1) {
      std::random_device rd;
      for (auto& s : seed) s = (static_cast<std::uint64_t>(rd()) << 32) ^ rd();
    }
    std::seed_seq seq{seed[0], seed[1], seed[2], seed[3]};
    return std::mt19937_64(seq);
  }();
  return gen;
}

}  // namespace modelgw::util
