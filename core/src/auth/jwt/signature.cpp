#include "auth/jwt/signature.h"

#include "auth/jwt/openssl_ptr.h"

#include <openssl/err.h>
#include <openssl/rsa.h>

#include <optional>
#include <string>

namespace modelgw::auth::jwt {
namespace {

// r||s (each `size` bytes, big-endian) → DER ECDSA-Sig-Value.
std::optional<std::string> ecdsa_der(std::string_view raw, std::size_t size) {
  if (raw.size() != 2 * size) return std::nullopt;
  const auto* bytes = reinterpret_cast<const unsigned char*>(raw.data());
  BignumPtr r(BN_bin2bn(bytes, static_cast<int>(size), nullptr));
  BignumPtr s(BN_bin2bn(bytes + size, static_cast<int>(size), nullptr));
  EcdsaSigPtr sig(ECDSA_SIG_new());
  if (!r || !s || !sig || ECDSA_SIG_set0(sig.get(), r.get(), s.get()) != 1) return std::nullopt;
  (void)r.release();  // owned by sig now
  (void)s.release();
  const int length = i2d_ECDSA_SIG(sig.get(), nullptr);
  if (length <= 0) return std::nullopt;
  std::string der(static_cast<std::size_t>(length), '\0');
  auto* out = reinterpret_cast<unsigned char*>(der.data());
  if (i2d_ECDSA_SIG(sig.get(), &out) != length) return std::nullopt;
  return der;
}

bool verify(const AlgorithmInfo& algorithm, EVP_PKEY* key, std::string_view signing_input,
            std::string_view signature) {
  std::string der;
  if (algorithm.family == KeyFamily::Ec) {
    auto converted = ecdsa_der(signature, algorithm.coordinate_bytes);
    if (!converted) return false;
    der = std::move(*converted);
    signature = der;
  }
  const std::string digest(algorithm.digest);
  MdCtxPtr ctx(EVP_MD_CTX_new());
  EVP_PKEY_CTX* pctx = nullptr;  // owned by ctx
  if (!ctx ||
      EVP_DigestVerifyInit_ex(ctx.get(), &pctx, digest.c_str(), nullptr, nullptr, key, nullptr) != 1) {
    return false;
  }
  if (algorithm.pss) {
    // RFC 7518 3.5: MGF1 with the same hash, salt as long as the hash.
    if (EVP_PKEY_CTX_set_rsa_padding(pctx, RSA_PKCS1_PSS_PADDING) != 1 ||
        EVP_PKEY_CTX_set_rsa_pss_saltlen(pctx, RSA_PSS_SALTLEN_DIGEST) != 1) {
      return false;
    }
  } else if (algorithm.family == KeyFamily::Rsa) {
    if (EVP_PKEY_CTX_set_rsa_padding(pctx, RSA_PKCS1_PADDING) != 1) return false;
  }
  const int ok =
      EVP_DigestVerify(ctx.get(), reinterpret_cast<const unsigned char*>(signature.data()), signature.size(),
                       reinterpret_cast<const unsigned char*>(signing_input.data()), signing_input.size());
  return ok == 1;
}

}  // namespace

bool verify_signature(const AlgorithmInfo& algorithm, EVP_PKEY* key, std::string_view signing_input,
                      std::string_view signature) {
  const bool ok = verify(algorithm, key, signing_input, signature);
  // A failed verification leaves entries in this thread's OpenSSL error
  // queue; a later TLS call on the same worker thread would misread them.
  ERR_clear_error();
  return ok;
}

}  // namespace modelgw::auth::jwt
