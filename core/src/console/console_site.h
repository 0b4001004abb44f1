// The web console (README "The web console"): its files, embedded at build
// time (core/console/), served under one path prefix with headers that keep
// the page to its own origin. It adds no way in: the page signs in with a
// gateway key the user types, holds it in memory, and calls the same /v1 and
// /internal/v1 routes with it, so it can do nothing the key cannot.
#pragma once

#include "http/server_call.h"

#include <string>
#include <string_view>

namespace modelgw::console {

class ConsoleSite {
 public:
  // `prefix`: where the console lives, "/console" by default (console.path).
  explicit ConsoleSite(std::string prefix);

  // The prefix itself, or anything under it.
  bool owns(std::string_view path) const;
  // Answers the call: a file, a redirect from the bare prefix to its folder,
  // 304 to a matching If-None-Match, 404 or 405. Never blocks.
  void serve(http::ServerCall& call) const;

 private:
  std::string prefix_;
};

// Whether an Accept-Encoding field value accepts gzip (RFC 9110 12.5.3): the
// coding named, or `*`, with a q-value above zero.
bool accepts_gzip(std::string_view accept_encoding);

}  // namespace modelgw::console
