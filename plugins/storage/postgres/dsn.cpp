#include "dsn.h"

#include <libpq-fe.h>

#include <algorithm>
#include <cctype>
#include <map>
#include <memory>
#include <vector>

#include "failure.h"

namespace mgw_pg {
namespace {

constexpr std::string_view kMask = "****";

std::string lower(std::string_view text) {
  std::string out(text);
  std::transform(out.begin(), out.end(), out.begin(), [](unsigned char c) { return std::tolower(c); });
  return out;
}

bool is_space(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

// password=VALUE, password = 'VALUE', ?password=VALUE&...: VALUE becomes ****.
std::string mask_password_keywords(std::string text) {
  constexpr std::string_view kKeyword = "password";
  std::size_t from = 0;
  for (;;) {
    const std::string folded = lower(text);
    const auto at = folded.find(kKeyword, from);
    if (at == std::string::npos) return text;
    std::size_t i = at + kKeyword.size();
    while (i < text.size() && is_space(text[i])) ++i;
    if (i >= text.size() || text[i] != '=') {
      from = at + kKeyword.size();
      continue;
    }
    ++i;
    while (i < text.size() && is_space(text[i])) ++i;
    std::size_t end = i;
    if (end < text.size() && text[end] == '\'') {
      ++end;
      while (end < text.size() && text[end] != '\'')
        end += (text[end] == '\\' && end + 1 < text.size()) ? 2 : 1;
      if (end < text.size()) ++end;  // the closing quote
    } else {
      while (end < text.size() && !is_space(text[end]) && text[end] != '&') ++end;
    }
    text.replace(i, end - i, kMask);
    from = i + kMask.size();
  }
}

// scheme://user:secret@host -> scheme://user:****@host
std::string mask_uri_userinfo(std::string text) {
  std::size_t from = 0;
  for (;;) {
    const auto scheme_end = text.find("://", from);
    if (scheme_end == std::string::npos) return text;
    const std::size_t start = scheme_end + 3;
    std::size_t end = start;
    while (end < text.size() && !is_space(text[end]) && text[end] != '/' && text[end] != '?' &&
           text[end] != '#')
      ++end;
    const auto authority = std::string_view(text).substr(start, end - start);
    const auto at = authority.rfind('@');
    if (at != std::string_view::npos) {
      const auto colon = authority.substr(0, at).find(':');
      if (colon != std::string_view::npos) {
        text.replace(start + colon + 1, at - colon - 1, kMask);
        end = start + colon + 1 + kMask.size() + 1;
      }
    }
    from = end;
  }
}

using Options = std::unique_ptr<PQconninfoOption, decltype(&PQconninfoFree)>;

}  // namespace

std::string mask_secrets(std::string_view text, std::string_view password) {
  std::string out(text);
  if (password.size() >= 3) {
    for (auto at = out.find(password); at != std::string::npos; at = out.find(password, at + kMask.size()))
      out.replace(at, password.size(), kMask);
  }
  return mask_uri_userinfo(mask_password_keywords(std::move(out)));
}

std::string quote_conninfo_value(std::string_view value) {
  std::string out = "'";
  for (char c : value) {
    if (c == '\\' || c == '\'') out.push_back('\\');
    out.push_back(c);
  }
  out.push_back('\'');
  return out;
}

ConnectTarget connect_target(const Config& config) {
  char* error = nullptr;
  Options parsed(PQconninfoParse(config.dsn.c_str(), &error), &PQconninfoFree);
  if (parsed == nullptr) {
    std::string why = error != nullptr ? one_line(error) : "out of memory";
    PQfreemem(error);
    // libpq's complaint may quote a piece of the DSN; when the DSN may hold a
    // password at all, say nothing more than that it is malformed.
    const std::string folded = lower(config.dsn);
    const bool may_hold_secret =
        folded.find("password") != std::string::npos || folded.find('@') != std::string::npos;
    throw Failure(MGW_INVALID_ARGUMENT,
                  "storage.options.dsn: not a valid libpq connection string or URI" +
                      (may_hold_secret ? std::string() : " (" + mask_secrets(why, {}) + ")"));
  }
  // keyword -> value, in libpq's own order; only keywords the DSN set.
  std::vector<std::pair<std::string, std::string>> keywords;
  for (const PQconninfoOption* o = parsed.get(); o->keyword != nullptr; ++o) {
    if (o->val != nullptr) keywords.emplace_back(o->keyword, o->val);
  }
  auto set = [&](const std::string& key, const std::string& value, bool override_dsn) {
    for (auto& [k, v] : keywords) {
      if (k == key) {
        if (override_dsn) v = value;
        return;
      }
    }
    keywords.emplace_back(key, value);
  };
  // libpq counts connect_timeout in whole seconds.
  set("connect_timeout", std::to_string((config.connect_timeout_ms + 999) / 1000),
      config.connect_timeout_given);
  set("application_name", config.application_name, config.application_name_given);
  if (config.sslmode) set("sslmode", *config.sslmode, true);
  if (config.sslrootcert) set("sslrootcert", *config.sslrootcert, true);
  if (config.sslcert) set("sslcert", *config.sslcert, true);
  if (config.sslkey) set("sslkey", *config.sslkey, true);

  ConnectTarget target;
  std::map<std::string, std::string> shown;
  for (const auto& [k, v] : keywords) {
    if (!target.conninfo.empty()) target.conninfo.push_back(' ');
    target.conninfo.append(k).append("=").append(quote_conninfo_value(v));
    if (k == "password") target.password = v;
    if (k == "host" || k == "hostaddr" || k == "port" || k == "dbname" || k == "user") shown[k] = v;
  }
  for (const auto* k : {"host", "hostaddr", "port", "dbname", "user"}) {
    auto it = shown.find(k);
    if (it == shown.end()) continue;
    if (!target.description.empty()) target.description.push_back(' ');
    target.description.append(k).append("=").append(it->second);
  }
  if (target.description.empty()) target.description = "libpq defaults";
  target.description = mask_secrets(target.description, target.password);
  return target;
}

}  // namespace mgw_pg
