#include "util/sha256_hex.h"

#include <openssl/evp.h>
#include <openssl/sha.h>

#include <array>
#include <memory>
#include <stdexcept>

namespace modelgw::util {
namespace {

// OpenSSL 3's one-shot SHA256() looks the algorithm up in the provider
// store on every call (a fetch under a lock, then a context allocated and
// freed): most of its cost for the short inputs hashed on the request path
// (an API key, an idempotency digest). The algorithm is fetched once and
// each thread keeps one context.
const EVP_MD* sha256_md() {
  static const std::unique_ptr<EVP_MD, decltype(&EVP_MD_free)> md(EVP_MD_fetch(nullptr, "SHA256", nullptr),
                                                                  &EVP_MD_free);
  return md.get();
}

EVP_MD_CTX* thread_context() {
  thread_local const std::unique_ptr<EVP_MD_CTX, decltype(&EVP_MD_CTX_free)> ctx(EVP_MD_CTX_new(),
                                                                                 &EVP_MD_CTX_free);
  return ctx.get();
}

}  // namespace

std::array<unsigned char, 32> sha256(std::initializer_list<std::string_view> parts) {
  static_assert(SHA256_DIGEST_LENGTH == 32);
  std::array<unsigned char, 32> digest{};
  EVP_MD_CTX* ctx = thread_context();
  const EVP_MD* md = sha256_md();
  bool ok = ctx != nullptr && md != nullptr && EVP_DigestInit_ex2(ctx, md, nullptr) == 1;
  for (const std::string_view part : parts) ok = ok && EVP_DigestUpdate(ctx, part.data(), part.size()) == 1;
  if (!ok || EVP_DigestFinal_ex(ctx, digest.data(), nullptr) != 1) {
    throw std::runtime_error("sha256: OpenSSL could not compute a digest");
  }
  return digest;
}

std::string sha256_hex(std::string_view bytes) {
  const auto digest = sha256({bytes});
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out(digest.size() * 2, '0');
  for (std::size_t i = 0; i < digest.size(); ++i) {
    out[2 * i] = kHex[digest[i] >> 4];
    out[2 * i + 1] = kHex[digest[i] & 0xF];
  }
  return out;
}

}  // namespace modelgw::util
