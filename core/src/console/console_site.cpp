#include "console/console_site.h"

#include "errors/api_error.h"
#include "http/conditional_get.h"
#include "http/field_rules.h"
#include "util/ascii.h"

#include <modelgw_console/assets.h>

namespace modelgw::console {
namespace {

// No script, style, image or connection but the console's own origin; no
// inline script or style (every value the page shows is set as text, never
// as markup); no framing, no form posts, no <base> tricks.
constexpr const char* kContentSecurityPolicy =
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; "
    "font-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

void set_page_headers(http::ServerCall& call) {
  call.set_header("Content-Security-Policy", kContentSecurityPolicy);
  call.set_header("X-Frame-Options", "DENY");
  call.set_header("X-Content-Type-Options", "nosniff");
  call.set_header("Referrer-Policy", "no-referrer");
  call.set_header("Cross-Origin-Opener-Policy", "same-origin");
  call.set_header("Cross-Origin-Resource-Policy", "same-origin");
  call.set_header("Permissions-Policy", "camera=(), microphone=(), geolocation=(), payment=()");
  // Always revalidated (the ETag makes that a 304): a new build's files are
  // never mixed with an old one's.
  call.set_header("Cache-Control", "no-cache");
}

const console_assets::Asset* find_asset(std::string_view name) {
  for (const auto& asset : console_assets::all()) {
    if (asset.name == name) return &asset;
  }
  return nullptr;
}

// The q-value of one Accept-Encoding member's parameters ("; q=0.5"): 1 when
// absent, 0 for anything that is not a valid qvalue.
bool q_is_zero(std::string_view params) {
  while (!params.empty()) {
    const auto semi = params.find(';');
    std::string_view param = http::trim_ows(params.substr(0, semi));
    params = semi == std::string_view::npos ? std::string_view() : params.substr(semi + 1);
    if (param.size() < 2 || (param[0] != 'q' && param[0] != 'Q') || param[1] != '=') continue;
    const std::string_view value = param.substr(2);
    // qvalue = ( "0" [ "." 0*3DIGIT ] ) / ( "1" [ "." 0*3("0") ] )
    if (value.empty() || value[0] != '0') return false;
    return value.find_first_not_of("0.") == std::string_view::npos;
  }
  return false;
}

}  // namespace

bool accepts_gzip(std::string_view accept_encoding) {
  bool gzip = false;
  bool star = false;
  bool gzip_named = false;
  while (!accept_encoding.empty()) {
    const auto comma = accept_encoding.find(',');
    const std::string_view member = accept_encoding.substr(0, comma);
    accept_encoding =
        comma == std::string_view::npos ? std::string_view() : accept_encoding.substr(comma + 1);
    const auto semi = member.find(';');
    const std::string_view coding = http::trim_ows(member.substr(0, semi));
    const bool zero = semi != std::string_view::npos && q_is_zero(member.substr(semi + 1));
    if (util::iequals(coding, "gzip") || util::iequals(coding, "x-gzip")) {
      gzip_named = true;
      gzip = !zero;
    } else if (coding == "*") {
      star = !zero;
    }
  }
  return gzip_named ? gzip : star;
}

ConsoleSite::ConsoleSite(std::string prefix) : prefix_(std::move(prefix)) {}

bool ConsoleSite::owns(std::string_view path) const {
  return path.substr(0, prefix_.size()) == prefix_ &&
         (path.size() == prefix_.size() || path[prefix_.size()] == '/');
}

void ConsoleSite::serve(http::ServerCall& call) const {
  const http::Request& request = call.request();
  if (request.method != "GET") {
    call.set_header("Allow", "GET");
    call.send_error(
        errors::ApiError{405,
                         "method_not_allowed",
                         errors::input_excerpt(request.method) + " is not allowed on the console; use GET",
                         {}});
    return;
  }
  const std::string_view path = request.path();
  if (path.size() == prefix_.size()) {
    // The page's files are named relative to its folder.
    std::string location = prefix_ + "/";
    if (!request.query().empty()) location += "?" + std::string(request.query());
    call.set_header("Location", std::move(location));
    call.send_text(308, "text/plain; charset=utf-8", "");
    return;
  }
  std::string_view name = path.substr(prefix_.size() + 1);
  if (name.empty()) name = "index.html";
  const console_assets::Asset* asset = find_asset(name);
  if (asset == nullptr) {
    call.send_error(
        errors::not_found("not_found", "the console has no file " + errors::input_excerpt(path, 128)));
    return;
  }
  set_page_headers(call);
  call.set_header("ETag", std::string(asset->etag));
  call.set_header("Vary", "Accept-Encoding");
  if (auto inm = request.header("if-none-match");
      !inm.empty() && http::if_none_match_hits(inm, asset->etag)) {
    call.send_not_modified();
    return;
  }
  if (accepts_gzip(request.header("accept-encoding"))) {
    call.set_header("Content-Encoding", "gzip");
    call.send_text(200, asset->content_type, asset->gzip);
  } else {
    call.send_text(200, asset->content_type, asset->identity);
  }
}

}  // namespace modelgw::console
