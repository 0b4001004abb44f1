#include "http/request_id.h"

#include <openssl/rand.h>

#include <array>
#include <random>

namespace modelgw::http {
namespace {
constexpr char kBase62[] = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

// A per-thread generator seeded once from OpenSSL's CSPRNG: ids must be
// unpredictable enough not to collide, not secret, and cheap on the hot path.
std::mt19937_64& generator() {
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
}  // namespace

std::string new_request_id() {
  std::string id = "req_";
  id.resize(4 + 24);
  auto& gen = generator();
  std::uniform_int_distribution<int> pick(0, 61);
  for (std::size_t i = 4; i < id.size(); ++i) id[i] = kBase62[pick(gen)];
  return id;
}

}  // namespace modelgw::http
