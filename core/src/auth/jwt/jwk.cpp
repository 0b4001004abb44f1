#include "auth/jwt/jwk.h"

#include "auth/jwt/openssl_ptr.h"
#include "util/base64url.h"
#include "util/json_depth.h"

#include <openssl/core_names.h>
#include <openssl/err.h>
#include <spdlog/spdlog.h>
#include <nlohmann/json.hpp>

namespace modelgw::auth::jwt {
namespace {

constexpr std::size_t kMaxJwkJsonDepth = 32;

// Why a key was skipped; empty when it was built.
using Skip = std::string;

std::string string_member(const nlohmann::json& jwk, const char* name) {
  auto it = jwk.find(name);
  return it != jwk.end() && it->is_string() ? it->get<std::string>() : std::string();
}

std::optional<std::string> decoded_member(const nlohmann::json& jwk, const char* name) {
  auto it = jwk.find(name);
  if (it == jwk.end() || !it->is_string()) return std::nullopt;
  auto bytes = util::base64url_decode(it->get_ref<const std::string&>());
  if (!bytes || bytes->empty()) return std::nullopt;
  return bytes;
}

BignumPtr to_bignum(const std::string& big_endian) {
  return BignumPtr(BN_bin2bn(reinterpret_cast<const unsigned char*>(big_endian.data()),
                             static_cast<int>(big_endian.size()), nullptr));
}

PkeyPtr from_params(const char* type, OSSL_PARAM_BLD* build) {
  ParamsPtr params(OSSL_PARAM_BLD_to_param(build));
  PkeyCtxPtr ctx(EVP_PKEY_CTX_new_from_name(nullptr, type, nullptr));
  if (!params || !ctx || EVP_PKEY_fromdata_init(ctx.get()) <= 0) return nullptr;
  EVP_PKEY* key = nullptr;
  if (EVP_PKEY_fromdata(ctx.get(), &key, EVP_PKEY_PUBLIC_KEY, params.get()) <= 0) return nullptr;
  return PkeyPtr(key);
}

Skip build_rsa(const nlohmann::json& jwk, Jwk& out) {
  auto n = decoded_member(jwk, "n");
  auto e = decoded_member(jwk, "e");
  if (!n || !e) return "'n' and 'e' must be non-empty base64url strings";
  BignumPtr modulus = to_bignum(*n);
  BignumPtr exponent = to_bignum(*e);
  if (!modulus || !exponent) return "out of memory";
  if (BN_num_bits(modulus.get()) < kMinRsaBits) {
    return "the modulus has " + std::to_string(BN_num_bits(modulus.get())) + " bits, below " +
           std::to_string(kMinRsaBits);
  }
  if (!BN_is_odd(exponent.get()) || BN_is_one(exponent.get()) || BN_num_bits(exponent.get()) > 64) {
    return "the public exponent is not a valid RSA exponent";
  }
  ParamBuildPtr build(OSSL_PARAM_BLD_new());
  if (!build || !OSSL_PARAM_BLD_push_BN(build.get(), OSSL_PKEY_PARAM_RSA_N, modulus.get()) ||
      !OSSL_PARAM_BLD_push_BN(build.get(), OSSL_PKEY_PARAM_RSA_E, exponent.get())) {
    return "out of memory";
  }
  PkeyPtr key = from_params("RSA", build.get());
  if (!key) return "OpenSSL refused the RSA parameters";
  out.key = share_key(std::move(key));
  return {};
}

Skip build_ec(const nlohmann::json& jwk, Jwk& out) {
  std::size_t size = 0;
  const char* group = nullptr;
  if (out.crv == "P-256") {
    size = 32;
    group = "prime256v1";
  } else if (out.crv == "P-384") {
    size = 48;
    group = "secp384r1";
  } else {
    return "curve '" + out.crv + "' is not supported (P-256, P-384)";
  }
  auto x = decoded_member(jwk, "x");
  auto y = decoded_member(jwk, "y");
  // RFC 7518 6.2.1.2: coordinates are exactly the field size, zero-padded.
  if (!x || !y || x->size() != size || y->size() != size) {
    return "'x' and 'y' must be base64url strings of " + std::to_string(size) + " bytes";
  }
  std::string point = "\x04" + *x + *y;  // uncompressed SEC1 point
  ParamBuildPtr build(OSSL_PARAM_BLD_new());
  if (!build || !OSSL_PARAM_BLD_push_utf8_string(build.get(), OSSL_PKEY_PARAM_GROUP_NAME, group, 0) ||
      !OSSL_PARAM_BLD_push_octet_string(build.get(), OSSL_PKEY_PARAM_PUB_KEY, point.data(), point.size())) {
    return "out of memory";
  }
  PkeyPtr key = from_params("EC", build.get());
  if (!key) return "the point is not on the curve";
  // A point off the curve (or at infinity) would invite invalid-curve tricks.
  PkeyCtxPtr check(EVP_PKEY_CTX_new_from_pkey(nullptr, key.get(), nullptr));
  if (!check || EVP_PKEY_public_check(check.get()) != 1) return "the point is not a valid public key";
  out.key = share_key(std::move(key));
  return {};
}

Skip build_key(const nlohmann::json& jwk, Jwk& out) {
  if (!jwk.is_object()) return "not a JSON object";
  out.kid = string_member(jwk, "kid");
  out.kty = string_member(jwk, "kty");
  out.alg = string_member(jwk, "alg");
  out.crv = string_member(jwk, "crv");
  if (jwk.contains("use") && string_member(jwk, "use") != "sig") return "its 'use' is not 'sig'";
  if (auto ops = jwk.find("key_ops"); ops != jwk.end()) {
    bool verify = false;
    if (ops->is_array()) {
      for (const auto& op : *ops) verify = verify || (op.is_string() && op.get<std::string>() == "verify");
    }
    if (!verify) return "its 'key_ops' does not include 'verify'";
  }
  if (out.kid.empty()) return "it has no 'kid', so no token can name it";
  if (out.kty == "RSA") return build_rsa(jwk, out);
  if (out.kty == "EC") return build_ec(jwk, out);
  return "key type '" + out.kty + "' is not supported (RSA, EC)";
}

}  // namespace

std::vector<const Jwk*> Keyset::with_kid(std::string_view kid) const {
  std::vector<const Jwk*> found;
  for (const auto& k : keys) {
    if (k.kid == kid) found.push_back(&k);
  }
  return found;
}

std::optional<Keyset> parse_jwks(std::string_view document, std::string& reason) {
  if (util::json_nesting_depth(document, kMaxJwkJsonDepth) > kMaxJwkJsonDepth) {
    reason = "the keyset document is nested too deeply";
    return std::nullopt;
  }
  auto root = nlohmann::json::parse(document, nullptr, /*allow_exceptions=*/false);
  if (root.is_discarded()) {
    reason = "the keyset document is not JSON";
    return std::nullopt;
  }
  if (!root.is_object() || !root.contains("keys") || !root.at("keys").is_array()) {
    reason = "the keyset document has no 'keys' array";
    return std::nullopt;
  }
  Keyset set;
  const auto& keys = root.at("keys");
  for (std::size_t i = 0; i < keys.size(); ++i) {
    Jwk jwk;
    Skip skip = build_key(keys[i], jwk);
    ERR_clear_error();  // a refused key leaves entries in this thread's OpenSSL error queue
    if (!skip.empty()) {
      ++set.skipped;
      spdlog::debug("JWKS key #{} (kid '{}') skipped: {}", i, jwk.kid, skip);
      continue;
    }
    set.keys.push_back(std::move(jwk));
  }
  return set;
}

}  // namespace modelgw::auth::jwt
