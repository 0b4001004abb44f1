// Random numbers for ids made on every request (request ids, trace ids): a
// per-thread generator seeded once from OpenSSL's CSPRNG. The ids must be
// unique and unguessable enough not to collide, not secret, and cheap.
#pragma once

#include <random>

namespace modelgw::util {

// This thread's generator; never shared between threads.
std::mt19937_64& thread_random();

}  // namespace modelgw::util
