#include "auth/jwt/validator.h"

#include "auth/jwt/signature.h"
#include "auth/jwt/token.h"

#include <spdlog/spdlog.h>

#include <algorithm>

namespace modelgw::auth::jwt {
namespace {

errors::ApiError unauthorized(std::string message) {
  return errors::ApiError{401, "invalid_api_key", std::move(message), {}};
}

// kid comes from the token's header: quoted for the caller, but cut short.
std::string quoted_kid(const std::string& kid) {
  constexpr std::size_t kMax = 64;
  return "'" + (kid.size() <= kMax ? kid : kid.substr(0, kMax) + "...") + "'";
}

std::string lowercase(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

// An algorithm name fit to repeat in a message: short, letters, digits and
// '+', '-', '_' only; anything else is left out.
std::string alg_for_message(const std::string& alg) {
  const bool plain = alg.size() <= 16 && std::all_of(alg.begin(), alg.end(), [](unsigned char c) {
                       return std::isalnum(c) || c == '+' || c == '-' || c == '_';
                     });
  return plain ? " '" + alg + "'" : "";
}

// RFC 7515 4.1.9 / RFC 9068 2.1: "JWT" or "at+jwt", with or without the
// "application/" prefix. Any other type is a different kind of token (a
// logout token, a DPoP proof) that must not pass for an access token.
bool acceptable_type(const std::string& typ) {
  std::string t = lowercase(typ);
  if (t.rfind("application/", 0) == 0) t = t.substr(12);
  return t == "jwt" || t == "at+jwt";
}

// The key a token's kid and alg select, or why none fits.
std::variant<const Jwk*, errors::ApiError> select_key(const std::vector<const Jwk*>& candidates,
                                                      const AlgorithmInfo& alg, const std::string& kid) {
  const Jwk* key = nullptr;
  for (const Jwk* k : candidates) {
    if (k->alg.empty() || k->alg == alg.name) {
      key = k;
      break;
    }
  }
  if (!key) {
    return unauthorized("the identity provider's key " + quoted_kid(kid) + " is for algorithm '" +
                        candidates.front()->alg + "', but the token says '" + std::string(alg.name) + "'");
  }
  if (alg.family == KeyFamily::Rsa && key->kty != "RSA") {
    return unauthorized("the identity provider's key " + quoted_kid(kid) + " is an " + key->kty +
                        " key, which cannot verify " + std::string(alg.name) + " signatures");
  }
  if (alg.family == KeyFamily::Ec && (key->kty != "EC" || key->crv != alg.curve)) {
    const std::string what = key->kty == "EC" ? "an EC " + key->crv : "an " + key->kty;
    return unauthorized("the identity provider's key " + quoted_kid(kid) + " is " + what +
                        " key, which cannot verify " + std::string(alg.name) + " signatures (they need " +
                        std::string(alg.curve) + ")");
  }
  return key;
}

errors::ApiError keys_unavailable(const KeysetCache& cache, const KeysetUnavailable& why) {
  errors::ApiError e{
      503,
      "jwks_unavailable",
      "the gateway could not fetch the signing keys from " + cache.options().source_host + "; retry shortly",
      {}};
  e.retry_after_s = static_cast<int>(why.retry_after.count());
  e.retryable = true;
  return e;
}

}  // namespace

Validator::Validator(ValidatorOptions options, std::shared_ptr<KeysetCache> keys, WallClock wall_clock)
    : options_(std::move(options)), keys_(std::move(keys)), wall_clock_(std::move(wall_clock)) {
  for (const auto& name : options_.algorithms) {
    auto alg = find_algorithm(name);
    if (!alg || is_forbidden_algorithm(name)) continue;
    accepted_.push_back(*alg);
    accepted_names_ += (accepted_names_.empty() ? "" : ", ") + name;
  }
}

std::variant<VerifiedToken, errors::ApiError> Validator::validate(std::string_view token) const {
  try {
    return check(token);
  } catch (const std::exception& e) {
    // Only a bug gets here (every check returns its error); the token is not logged.
    spdlog::error("JWT validation failed unexpectedly: {}", e.what());
    return errors::internal_error();
  }
}

std::variant<VerifiedToken, errors::ApiError> Validator::check(std::string_view compact) const {
  auto parsed = parse_token(compact, options_.max_token_bytes);
  if (auto* bad = std::get_if<Malformed>(&parsed)) {
    return unauthorized("the bearer token is not a well-formed JWT: " + bad->reason);
  }
  const Token& token = std::get<Token>(parsed);
  const auto& header = token.header;

  if (header.contains("crit")) {
    return unauthorized(
        "the token's header lists critical extensions (crit), which the gateway does not support");
  }
  if (auto typ = header.find("typ");
      typ != header.end() && (!typ->is_string() || !acceptable_type(typ->get<std::string>()))) {
    return unauthorized("the token's type (typ header) is not 'JWT' or 'at+jwt'; send an access token");
  }
  auto alg_it = header.find("alg");
  if (alg_it == header.end() || !alg_it->is_string()) {
    return unauthorized("the bearer token is not a well-formed JWT: its header has no 'alg'");
  }
  const std::string alg_name = alg_it->get<std::string>();
  if (is_forbidden_algorithm(alg_name)) {
    return unauthorized("the token's algorithm" + alg_for_message(alg_name) +
                        " is refused: the gateway accepts only tokens signed with the identity provider's "
                        "public key (" +
                        accepted_names_ + ")");
  }
  auto alg =
      std::find_if(accepted_.begin(), accepted_.end(), [&](const auto& a) { return a.name == alg_name; });
  if (alg == accepted_.end()) {
    return unauthorized("the token's algorithm" + alg_for_message(alg_name) + " is not accepted here (" +
                        accepted_names_ + ")");
  }
  auto kid_it = header.find("kid");
  if (kid_it == header.end() || !kid_it->is_string() || kid_it->get_ref<const std::string&>().empty()) {
    return unauthorized(
        "the token's header names no signing key (kid); the gateway needs it to pick the "
        "identity provider's key");
  }
  const std::string kid = kid_it->get<std::string>();

  auto keys = keys_->current();
  if (auto* down = std::get_if<KeysetUnavailable>(&keys)) return keys_unavailable(*keys_, *down);
  auto candidates = std::get<std::shared_ptr<const Keyset>>(keys)->with_kid(kid);
  if (candidates.empty()) {
    keys = keys_->refresh_for_unknown_kid(std::get<std::shared_ptr<const Keyset>>(keys));
    if (auto* down = std::get_if<KeysetUnavailable>(&keys)) return keys_unavailable(*keys_, *down);
    candidates = std::get<std::shared_ptr<const Keyset>>(keys)->with_kid(kid);
  }
  if (candidates.empty()) {
    return unauthorized("the token's signing key (kid " + quoted_kid(kid) +
                        ") is not in the identity provider's keyset");
  }
  // `keys` holds the keyset alive while its keys are used below.
  auto selected = select_key(candidates, *alg, kid);
  if (auto* e = std::get_if<errors::ApiError>(&selected)) return *e;
  const Jwk& key = *std::get<const Jwk*>(selected);

  if (!verify_signature(*alg, key.key.get(), token.signing_input, token.signature)) {
    return unauthorized("the token's signature does not verify with the identity provider's key " +
                        quoted_kid(kid));
  }

  auto claims = check_claims(token.claims, options_, wall_clock_());
  if (auto* problem = std::get_if<ClaimProblem>(&claims)) return unauthorized(problem->message);
  auto verified = std::get<VerifiedToken>(std::move(claims));
  verified.kid = kid;
  return verified;
}

}  // namespace modelgw::auth::jwt
