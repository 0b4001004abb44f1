#include "auth/jwt/algorithm.h"

#include <array>

namespace modelgw::auth::jwt {
namespace {

constexpr std::array<AlgorithmInfo, 8> kAlgorithms{{
    {Algorithm::RS256, "RS256", "SHA256", KeyFamily::Rsa, false, "", 0},
    {Algorithm::RS384, "RS384", "SHA384", KeyFamily::Rsa, false, "", 0},
    {Algorithm::RS512, "RS512", "SHA512", KeyFamily::Rsa, false, "", 0},
    {Algorithm::PS256, "PS256", "SHA256", KeyFamily::Rsa, true, "", 0},
    {Algorithm::PS384, "PS384", "SHA384", KeyFamily::Rsa, true, "", 0},
    {Algorithm::PS512, "PS512", "SHA512", KeyFamily::Rsa, true, "", 0},
    {Algorithm::ES256, "ES256", "SHA256", KeyFamily::Ec, false, "P-256", 32},
    {Algorithm::ES384, "ES384", "SHA384", KeyFamily::Ec, false, "P-384", 48},
}};

}  // namespace

std::optional<AlgorithmInfo> find_algorithm(std::string_view name) {
  for (const auto& a : kAlgorithms) {
    if (a.name == name) return a;
  }
  return std::nullopt;
}

std::vector<std::string> supported_algorithm_names() {
  std::vector<std::string> names;
  for (const auto& a : kAlgorithms) names.emplace_back(a.name);
  return names;
}

bool is_forbidden_algorithm(std::string_view name) {
  // Compared case-insensitively: "None" or "hs256" must not slip through a
  // configuration check that a later, more lenient reader would accept.
  auto lower = [](char c) { return static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c); };
  std::string folded;
  for (char c : name) folded.push_back(lower(c));
  return folded == "none" || folded.rfind("hs", 0) == 0;
}

}  // namespace modelgw::auth::jwt
