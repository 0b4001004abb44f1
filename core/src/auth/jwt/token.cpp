#include "auth/jwt/token.h"

#include "util/base64url.h"
#include "util/json_depth.h"

#include <optional>

namespace modelgw::auth::jwt {
namespace {

// JOSE headers and claim sets are flat in practice; a deep one is an attack
// on the parser, not a token.
constexpr std::size_t kMaxTokenJsonDepth = 16;

std::optional<nlohmann::json> decode_object(std::string_view segment, const char* what, std::string& reason) {
  auto text = util::base64url_decode(segment);
  if (!text) {
    reason = std::string("the ") + what + " segment is not base64url without padding";
    return std::nullopt;
  }
  if (util::json_nesting_depth(*text, kMaxTokenJsonDepth) > kMaxTokenJsonDepth) {
    reason = std::string("the ") + what + " is nested too deeply";
    return std::nullopt;
  }
  auto value = nlohmann::json::parse(*text, nullptr, /*allow_exceptions=*/false);
  if (value.is_discarded()) {
    reason = std::string("the ") + what + " is not JSON";
    return std::nullopt;
  }
  if (!value.is_object()) {
    reason = std::string("the ") + what + " is not a JSON object";
    return std::nullopt;
  }
  return value;
}

}  // namespace

std::variant<Token, Malformed> parse_token(std::string_view compact, std::size_t max_bytes) {
  if (compact.size() > max_bytes) {
    return Malformed{"it is " + std::to_string(compact.size()) + " bytes long, above the limit of " +
                     std::to_string(max_bytes)};
  }
  const auto first = compact.find('.');
  const auto second = first == std::string_view::npos ? first : compact.find('.', first + 1);
  if (second == std::string_view::npos || compact.find('.', second + 1) != std::string_view::npos) {
    std::size_t segments = 1;
    for (char c : compact) segments += c == '.' ? 1 : 0;
    return Malformed{"it has " + std::to_string(segments) + " dot-separated segments; a signed JWT has 3"};
  }
  const auto header_text = compact.substr(0, first);
  const auto claims_text = compact.substr(first + 1, second - first - 1);
  const auto signature_text = compact.substr(second + 1);
  // An empty signature is left to the validator: it belongs to alg "none",
  // which deserves its own refusal.
  if (header_text.empty() || claims_text.empty()) return Malformed{"its header or claims segment is empty"};

  Token token;
  std::string reason;
  auto header = decode_object(header_text, "header", reason);
  if (!header) return Malformed{reason};
  auto claims = decode_object(claims_text, "claims", reason);
  if (!claims) return Malformed{reason};
  auto signature = util::base64url_decode(signature_text);
  if (!signature) return Malformed{"the signature segment is not base64url without padding"};

  token.header = std::move(*header);
  token.claims = std::move(*claims);
  token.signing_input = compact.substr(0, second);
  token.signature = std::move(*signature);
  return token;
}

}  // namespace modelgw::auth::jwt
