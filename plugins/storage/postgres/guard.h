// guarded(): the fence around every hook body. Nothing may be thrown across the
// C boundary, so each hook runs its body here and gets a status back.
#pragma once

#include <modelgw/plugin.h>
#include <modelgw/sdk.hpp>

#include <exception>
#include <new>
#include <string>
#include <string_view>

#include "failure.h"

namespace mgw_pg {

// Sends "<hook>: <text>" (or just `text` when hook is empty) to `error`. Never
// throws: if building the message runs out of memory, `text` goes alone.
inline void report(const mgw_text_sink* error, std::string_view hook, std::string_view text) noexcept {
  if (hook.empty()) return mgw::say(error, text);
  try {
    std::string line;
    line.reserve(hook.size() + 2 + text.size());
    line.append(hook).append(": ").append(text);
    mgw::say(error, line);
  } catch (...) {
    mgw::say(error, text);
  }
}

// Runs `body` (returning mgw_status) and maps anything it throws to a status,
// reporting why through `error`. NOT_FOUND stays silent, as the ABI allows.
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

}  // namespace mgw_pg
