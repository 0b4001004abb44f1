// Host callbacks never throw, longjmp or unwind into a plugin (plugin.h): a
// plugin in C, Rust or Go has no frame that could take a C++ exception. Each
// host callback runs its body through CallbackGuard::run, which catches
// everything and marks the hook call failed; every later callback of that call
// then returns at once, and the host reports the failure after the hook
// returns, whatever status the plugin gave.
#pragma once

#include <modelgw/plugin.h>

#include <string>
#include <string_view>

namespace modelgw::plugins {

class CallbackGuard {
 public:
  template <typename F>
  void run(F&& body) noexcept {
    if (failed_) return;
    try {
      body();
    } catch (...) {
      failed_ = true;
    }
  }
  // A callback that found the plugin breaking a rule ends the call the same way.
  void fail() noexcept { failed_ = true; }
  bool failed() const noexcept { return failed_; }

 private:
  bool failed_ = false;
};

// Collects the text a plugin gives through an mgw_text_sink (why a hook failed).
struct TextCollector {
  std::string text;
  CallbackGuard guard;
  mgw_text_sink sink{
      this, [](void* self, mgw_str t) noexcept {
        auto* c = static_cast<TextCollector*>(self);
        c->guard.run([&] { c->text.append(t.ptr == nullptr ? "" : std::string_view(t.ptr, t.len)); });
      }};
};

// plugin.h rule 5: a hook that creates a handle leaves it NULL on failure, and
// one left there anyway goes back through its destroy hook at once, so the host
// never leaks it. True when `handle` is a live handle to keep.
template <typename Handle, typename Destroy>
bool keep_new_handle(mgw_status status, Handle*& handle, Destroy destroy) noexcept {
  if (status == MGW_OK && handle != nullptr) return true;
  if (handle != nullptr) destroy(handle);
  handle = nullptr;
  return false;
}

}  // namespace modelgw::plugins
