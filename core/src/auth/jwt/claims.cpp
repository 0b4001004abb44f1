#include "auth/jwt/claims.h"

#include <cmath>
#include <ctime>
#include <optional>

namespace modelgw::auth::jwt {
namespace {

// Claim values are quoted in messages to help the caller, but cut short: a
// signed token may still carry kilobytes in a claim.
std::string quoted(const std::string& value) {
  constexpr std::size_t kMax = 80;
  return "'" + (value.size() <= kMax ? value : value.substr(0, kMax) + "...") + "'";
}

// Nullopt when the claim is absent; ClaimProblem when it is not a number.
std::variant<std::optional<double>, ClaimProblem> number_claim(const nlohmann::json& claims, const char* name,
                                                               const char* meaning) {
  auto it = claims.find(name);
  if (it == claims.end()) return std::optional<double>();
  if (!it->is_number()) {
    return ClaimProblem{std::string("the token's ") + meaning + " (" + name +
                        " claim) must be a number of seconds since 1970"};
  }
  return std::optional<double>(it->get<double>());
}

std::optional<ClaimProblem> check_times(const nlohmann::json& claims, double now, double leeway) {
  auto exp = number_claim(claims, "exp", "expiry");
  if (auto* p = std::get_if<ClaimProblem>(&exp)) return *p;
  const auto expires = std::get<std::optional<double>>(exp);
  if (!expires) {
    return ClaimProblem{"the token has no expiry (exp claim); the gateway accepts only tokens that expire"};
  }
  if (now >= *expires + leeway) {
    return ClaimProblem{"the token expired at " + format_unix_time(*expires) + "; get a new one"};
  }
  auto nbf = number_claim(claims, "nbf", "not-before time");
  if (auto* p = std::get_if<ClaimProblem>(&nbf)) return *p;
  if (auto not_before = std::get<std::optional<double>>(nbf); not_before && now + leeway < *not_before) {
    return ClaimProblem{"the token is not valid before " + format_unix_time(*not_before)};
  }
  auto iat = number_claim(claims, "iat", "issue time");
  if (auto* p = std::get_if<ClaimProblem>(&iat)) return *p;
  if (auto issued = std::get<std::optional<double>>(iat); issued && now + leeway < *issued) {
    return ClaimProblem{"the token claims to be issued in the future, at " + format_unix_time(*issued) +
                        "; the identity provider's clock or the gateway's is wrong"};
  }
  return std::nullopt;
}

std::optional<ClaimProblem> check_issuer_and_audience(const nlohmann::json& claims,
                                                      const ValidatorOptions& options) {
  auto iss = claims.find("iss");
  if (iss == claims.end() || !iss->is_string()) {
    return ClaimProblem{"the token names no issuer (iss claim); this gateway trusts " +
                        quoted(options.issuer)};
  }
  if (iss->get_ref<const std::string&>() != options.issuer) {
    return ClaimProblem{"the token's issuer " + quoted(iss->get<std::string>()) +
                        " is not the one this gateway trusts (" + quoted(options.issuer) + ")"};
  }
  auto aud = claims.find("aud");
  bool found = false;
  if (aud != claims.end() && aud->is_string()) {
    found = aud->get_ref<const std::string&>() == options.audience;
  } else if (aud != claims.end() && aud->is_array()) {
    for (const auto& a : *aud)
      found = found || (a.is_string() && a.get_ref<const std::string&>() == options.audience);
  } else {
    return ClaimProblem{
        "the token names no audience (aud claim, a string or an array of strings); it must "
        "include " +
        quoted(options.audience)};
  }
  if (!found) return ClaimProblem{"the token's audience (aud) does not include " + quoted(options.audience)};
  return std::nullopt;
}

// Appends the space-separated scopes of `text` to `out`, one space between.
void append_scopes(std::string_view text, std::string& out) {
  while (!text.empty()) {
    const auto space = text.find(' ');
    const auto one = text.substr(0, space);
    if (!one.empty()) {
      if (!out.empty()) out += ' ';
      out += one;
    }
    if (space == std::string_view::npos) break;
    text.remove_prefix(space + 1);
  }
}

}  // namespace

std::variant<VerifiedToken, ClaimProblem> check_claims(const nlohmann::json& claims,
                                                       const ValidatorOptions& options,
                                                       std::chrono::system_clock::time_point now) {
  const double now_s = std::chrono::duration<double>(now.time_since_epoch()).count();
  if (auto p = check_times(claims, now_s, static_cast<double>(options.leeway.count()))) return *p;
  if (auto p = check_issuer_and_audience(claims, options)) return *p;

  VerifiedToken out;
  auto tenant = claims.find(options.tenant_claim);
  if (tenant == claims.end()) {
    return ClaimProblem{"the token has no " + quoted(options.tenant_claim) + " claim naming the tenant"};
  }
  if (!tenant->is_string() || tenant->get_ref<const std::string&>().empty()) {
    return ClaimProblem{"the token's " + quoted(options.tenant_claim) +
                        " claim must be a non-empty string naming the tenant"};
  }
  out.tenant = tenant->get<std::string>();

  // Absent scopes are no scopes: the endpoint then answers 403 naming the one it needs.
  if (auto scope = claims.find(options.scope_claim); scope != claims.end()) {
    const std::string problem = "the token's " + quoted(options.scope_claim) +
                                " claim must be a space-separated string or an array of strings";
    if (scope->is_string()) {
      append_scopes(scope->get_ref<const std::string&>(), out.scopes);
    } else if (scope->is_array()) {
      for (const auto& s : *scope) {
        if (!s.is_string()) return ClaimProblem{problem};
        append_scopes(s.get_ref<const std::string&>(), out.scopes);
      }
    } else {
      return ClaimProblem{problem};
    }
  }

  if (auto sub = claims.find("sub"); sub != claims.end()) {
    if (!sub->is_string()) return ClaimProblem{"the token's subject (sub claim) must be a string"};
    out.subject = sub->get<std::string>();
  }
  return out;
}

std::string format_unix_time(double seconds) {
  constexpr double kYear1 = -62135596800.0;     // 0001-01-01T00:00:00Z
  constexpr double kYear9999 = 253402300799.0;  // 9999-12-31T23:59:59Z
  if (!std::isfinite(seconds) || seconds < kYear1 || seconds > kYear9999) {
    return std::to_string(seconds) + " (seconds since 1970)";
  }
  const std::time_t t = static_cast<std::time_t>(std::floor(seconds));
  std::tm tm{};
  if (gmtime_r(&t, &tm) == nullptr) return std::to_string(seconds) + " (seconds since 1970)";
  char text[32];
  const auto n = std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return std::string(text, n);
}

}  // namespace modelgw::auth::jwt
