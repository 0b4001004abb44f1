// The exception fence of a storage plugin: the one exception type its code
// throws (Failure, which carries an mgw_status) and guarded(), which runs a
// hook's body, catches everything and hands the host a status instead.
// Header-only C++17; needs only the SDK's plugin.h and sdk.hpp and the C++
// standard library.
//
// NO EXCEPTION CROSSES THE ABI: a hook written as
//
//   mgw_status tenant_list(mgw_storage* s, const mgw_row_sink* out, const mgw_text_sink* error) noexcept {
//     return mgw::storage::guarded(error, "tenant list", [&] { ...; return MGW_OK; });
//   }
//
// returns the status of a Failure it throws, MGW_INTERNAL for any other
// exception (out of memory included), and never unwinds into the host.
//
// OWNERSHIP: nothing here allocates anything the host sees. The text sent to
// `error` is borrowed by the host for the duration of the callback only.
// THREADING: no state; safe on any thread. The error sink is called on the
// calling thread, during the hook it was passed to (plugin.h's rule).
#pragma once

#include <modelgw/plugin.h>
#include <modelgw/sdk.hpp>

#include <exception>
#include <new>
#include <stdexcept>
#include <string>
#include <string_view>

namespace mgw::storage {

// What a storage plugin throws inside a hook: the status the hook returns and
// a message for the hook's error sink. Messages name fields, tables and
// columns; never put a stored value or a key in one.
class Failure : public std::runtime_error {
 public:
  Failure(mgw_status status, const std::string& message) : std::runtime_error(message), status_(status) {}
  mgw_status status() const noexcept { return status_; }

 private:
  mgw_status status_;
};

// Sends "<hook>: <text>" (or just `text` when hook is empty) to `error`, which
// may be NULL. Never throws: if building the message runs out of memory,
// `text` goes alone.
inline void report(const mgw_text_sink* error, std::string_view hook, std::string_view text) noexcept {
  if (hook.empty()) return say(error, text);
  try {
    std::string line;
    line.reserve(hook.size() + 2 + text.size());
    line.append(hook).append(": ").append(text);
    say(error, line);
  } catch (...) {
    say(error, text);
  }
}

// Runs `body` (callable as mgw_status()) and maps anything it throws to a
// status, reporting why through `error` prefixed by `hook` (empty: no
// prefix). A Failure gives its own status (MGW_NOT_FOUND stays silent, as the
// ABI allows); std::bad_alloc, any other std::exception and anything else
// give MGW_INTERNAL. `body` runs on the calling thread, once.
template <typename Body>
mgw_status guarded(const mgw_text_sink* error, std::string_view hook, Body&& body) noexcept {
  try {
    return body();
  } catch (const Failure& failure) {
    if (failure.status() != MGW_NOT_FOUND) report(error, hook, failure.what());
    return failure.status();
  } catch (const std::bad_alloc&) {
    report(error, hook, "out of memory");
  } catch (const std::exception& e) {
    report(error, hook, e.what());
  } catch (...) {
    report(error, hook, "unknown exception");
  }
  return MGW_INTERNAL;
}

}  // namespace mgw::storage
