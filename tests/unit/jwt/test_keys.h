// Test keys and tokens made with OpenSSL: RSA and EC key pairs generated once
// per test binary, JWKS documents built from their public halves, and compact
// JWS tokens signed with their private halves (r||s for ECDSA, as RFC 7518).
#pragma once

#include "auth/jwt/algorithm.h"
#include "auth/jwt/openssl_ptr.h"
#include "util/base64url.h"

#include <gtest/gtest.h>
#include <openssl/core_names.h>
#include <openssl/err.h>
#include <openssl/hmac.h>
#include <openssl/pem.h>
#include <openssl/rsa.h>
#include <nlohmann/json.hpp>

#include <chrono>
#include <memory>
#include <stdexcept>
#include <string>

namespace modelgw::testing::jwt {

using auth::jwt::PkeyPtr;
using util::base64url_encode;

// 2026-11-22T06:00:00Z: the tests' "now", so messages are predictable.
inline constexpr std::int64_t kNow = 1795327200;

inline std::chrono::system_clock::time_point wall_time(std::int64_t unix_seconds) {
  return std::chrono::system_clock::time_point(std::chrono::seconds(unix_seconds));
}

struct KeyPair {
  std::shared_ptr<EVP_PKEY> key;
  std::string kid;
  std::string kty;  // "RSA" or "EC"
  std::string crv;  // "P-256" / "P-384" for EC
};

inline std::shared_ptr<EVP_PKEY> share(EVP_PKEY* key) {
  if (!key) throw std::runtime_error("key generation failed");
  return std::shared_ptr<EVP_PKEY>(key, EVP_PKEY_free);
}

// Generated once: RSA key generation costs tens of milliseconds.
inline const KeyPair& rsa_key() {
  static const KeyPair k{share(EVP_RSA_gen(2048)), "rsa-1", "RSA", ""};
  return k;
}
inline const KeyPair& rsa_key_2() {
  static const KeyPair k{share(EVP_RSA_gen(2048)), "rsa-2", "RSA", ""};
  return k;
}
inline const KeyPair& ec256_key() {
  static const KeyPair k{share(EVP_EC_gen("prime256v1")), "ec-256", "EC", "P-256"};
  return k;
}
inline const KeyPair& ec384_key() {
  static const KeyPair k{share(EVP_EC_gen("secp384r1")), "ec-384", "EC", "P-384"};
  return k;
}

inline std::string bn_param(EVP_PKEY* key, const char* name, int pad_to = 0) {
  BIGNUM* bn = nullptr;
  if (EVP_PKEY_get_bn_param(key, name, &bn) != 1) throw std::runtime_error(std::string("no ") + name);
  auth::jwt::BignumPtr owned(bn);
  std::string out(static_cast<std::size_t>(pad_to > 0 ? pad_to : BN_num_bytes(bn)), '\0');
  BN_bn2binpad(bn, reinterpret_cast<unsigned char*>(out.data()), static_cast<int>(out.size()));
  return out;
}

// The public JWK of `k`; `alg` is added when not empty.
inline nlohmann::json public_jwk(const KeyPair& k, const std::string& alg = "") {
  nlohmann::json j = {{"kty", k.kty}, {"kid", k.kid}, {"use", "sig"}};
  if (k.kty == "RSA") {
    j["n"] = base64url_encode(bn_param(k.key.get(), OSSL_PKEY_PARAM_RSA_N));
    j["e"] = base64url_encode(bn_param(k.key.get(), OSSL_PKEY_PARAM_RSA_E));
  } else {
    const int size = k.crv == "P-256" ? 32 : 48;
    j["crv"] = k.crv;
    j["x"] = base64url_encode(bn_param(k.key.get(), OSSL_PKEY_PARAM_EC_PUB_X, size));
    j["y"] = base64url_encode(bn_param(k.key.get(), OSSL_PKEY_PARAM_EC_PUB_Y, size));
  }
  if (!alg.empty()) j["alg"] = alg;
  return j;
}

inline std::string jwks(std::initializer_list<nlohmann::json> keys) {
  return nlohmann::json{{"keys", nlohmann::json::array_t(keys)}}.dump();
}

// The JWS signature (raw bytes) of `input` with `alg`.
inline std::string sign(const KeyPair& k, const std::string& alg_name, std::string_view input) {
  auto alg = auth::jwt::find_algorithm(alg_name);
  if (!alg) throw std::runtime_error("unknown alg " + alg_name);
  const std::string digest(alg->digest);
  auth::jwt::MdCtxPtr ctx(EVP_MD_CTX_new());
  EVP_PKEY_CTX* pctx = nullptr;
  if (EVP_DigestSignInit_ex(ctx.get(), &pctx, digest.c_str(), nullptr, nullptr, k.key.get(), nullptr) != 1) {
    throw std::runtime_error("sign init failed");
  }
  if (alg->pss) {
    EVP_PKEY_CTX_set_rsa_padding(pctx, RSA_PKCS1_PSS_PADDING);
    EVP_PKEY_CTX_set_rsa_pss_saltlen(pctx, RSA_PSS_SALTLEN_DIGEST);
  }
  const auto* data = reinterpret_cast<const unsigned char*>(input.data());
  std::size_t length = 0;
  if (EVP_DigestSign(ctx.get(), nullptr, &length, data, input.size()) != 1) throw std::runtime_error("sign");
  std::string sig(length, '\0');
  if (EVP_DigestSign(ctx.get(), reinterpret_cast<unsigned char*>(sig.data()), &length, data, input.size()) !=
      1) {
    throw std::runtime_error("sign");
  }
  sig.resize(length);
  if (alg->family != auth::jwt::KeyFamily::Ec) return sig;
  // DER → r||s, each the curve's size.
  const auto* p = reinterpret_cast<const unsigned char*>(sig.data());
  auth::jwt::EcdsaSigPtr ecdsa(d2i_ECDSA_SIG(nullptr, &p, static_cast<long>(sig.size())));
  if (!ecdsa) throw std::runtime_error("bad DER signature");
  const int size = static_cast<int>(alg->coordinate_bytes);
  std::string raw(2 * alg->coordinate_bytes, '\0');
  BN_bn2binpad(ECDSA_SIG_get0_r(ecdsa.get()), reinterpret_cast<unsigned char*>(raw.data()), size);
  BN_bn2binpad(ECDSA_SIG_get0_s(ecdsa.get()), reinterpret_cast<unsigned char*>(raw.data()) + size, size);
  return raw;
}

inline std::string signing_input(const nlohmann::json& header, const nlohmann::json& claims) {
  return base64url_encode(header.dump()) + "." + base64url_encode(claims.dump());
}

// A compact JWS of `claims`, header {alg, kid, typ: JWT} plus `extra_header`.
inline std::string make_token(const KeyPair& k, const std::string& alg, const nlohmann::json& claims,
                              const nlohmann::json& extra_header = nlohmann::json::object()) {
  nlohmann::json header = {{"alg", alg}, {"kid", k.kid}, {"typ", "JWT"}};
  header.update(extra_header);
  const std::string input = signing_input(header, claims);
  return input + "." + base64url_encode(sign(k, alg, input));
}

// The claims every valid test token carries; tests change what they test.
inline nlohmann::json good_claims() {
  return {{"iss", "https://idp.example"}, {"aud", "modelgw"}, {"sub", "user-42"}, {"tenant", "acme"},
          {"scope", "chat models:read"},  {"iat", kNow - 10}, {"exp", kNow + 600}};
}

inline std::string public_pem(const KeyPair& k) {
  std::unique_ptr<BIO, decltype(&BIO_free)> bio(BIO_new(BIO_s_mem()), BIO_free);
  PEM_write_bio_PUBKEY(bio.get(), k.key.get());
  char* data = nullptr;
  const long n = BIO_get_mem_data(bio.get(), &data);
  return std::string(data, static_cast<std::size_t>(n));
}

// An HS256 token whose HMAC secret is `secret` (the classic key-confusion attack
// uses the provider's public key PEM).
inline std::string hmac_token(const std::string& kid, const nlohmann::json& claims,
                              const std::string& secret) {
  const nlohmann::json header = {{"alg", "HS256"}, {"kid", kid}, {"typ", "JWT"}};
  const std::string input = signing_input(header, claims);
  unsigned char mac[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  HMAC(EVP_sha256(), secret.data(), static_cast<int>(secret.size()),
       reinterpret_cast<const unsigned char*>(input.data()), input.size(), mac, &length);
  return input + "." + base64url_encode(std::string(reinterpret_cast<char*>(mac), length));
}

}  // namespace modelgw::testing::jwt
