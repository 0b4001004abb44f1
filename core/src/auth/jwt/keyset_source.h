// Where the keyset document comes from. The cache asks a KeysetSource, so
// tests hand it a scripted one and the gateway an HTTP(S) fetcher.
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <variant>

namespace modelgw::auth::jwt {

struct FetchedDocument {
  std::string body;
  // From Cache-Control; nullopt when the response names no lifetime.
  std::optional<std::chrono::seconds> max_age;
};

struct FetchFailure {
  std::string reason;  // for the log, e.g. "HTTP 500" or "connection refused"; never a secret
};

class KeysetSource {
 public:
  virtual ~KeysetSource() = default;
  // Blocking; must be bounded in time and must not throw. Called by one
  // thread at a time.
  virtual std::variant<FetchedDocument, FetchFailure> fetch() = 0;
};

}  // namespace modelgw::auth::jwt
