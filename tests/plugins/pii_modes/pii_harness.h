// Shared by the PII mode plugin tests: loads the three plugin .so files
// (MGW_PII_BLOCK_PLUGIN, MGW_PII_MASK_PLUGIN, MGW_PII_FLAG_PLUGIN) with
// Boost.DLL, as the gateway would, and offers helpers that lay out texts the
// way a host does (with any element stride for the findings) and record what
// a plugin sends to its mgw_pii_sink.
#pragma once

#include <modelgw/plugin.h>
#include <modelgw/testing/fake_host.hpp>

#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace pii_test {

using mgw::testing::FakeHost;
using mgw::testing::TextRecorder;

enum class Mode { block, mask, flag };
inline constexpr Mode kAllModes[] = {Mode::block, Mode::mask, Mode::flag};

// "block", "mask", "flag": the descriptor's name and the .so's middle part.
const char* name(Mode mode);
// Path of the built .so.
const char* path(Mode mode);
// For INSTANTIATE_TEST_SUITE_P: names the instance after the mode.
std::string param_name(const ::testing::TestParamInfo<Mode>& info);

// The plugin's entry symbol, from the .so loaded once per test process.
mgw_plugin_entry_fn plugin_entry(Mode mode);
// The descriptor and pii hook table for a conforming host.
const mgw_plugin_descriptor& descriptor(Mode mode);
const mgw_pii_hooks& hooks(Mode mode);

// One configured mode with its own fake host; destroyed with the object.
class Instance {
 public:
  explicit Instance(Mode mode, std::string_view options = "{}");
  ~Instance();
  Instance(const Instance&) = delete;
  Instance& operator=(const Instance&) = delete;

  Mode mode() const { return mode_; }
  mgw_pii* get() const { return pii_; }
  const FakeHost& host() const { return host_; }

 private:
  Mode mode_;
  FakeHost host_;
  mgw_pii* pii_ = nullptr;
};

// on_pii_new's status and error text for `options`.
std::pair<mgw_status, std::string> try_options(Mode mode, std::string_view options);

// One finding as a test writes it.
struct Finding {
  std::string category;
  std::uint64_t offset = 0;
  std::uint64_t length = 0;
  bool critical = false;
};

// A text and its findings, laid out for the plugin by Applied (below).
struct TextSpec {
  std::string path = "messages[0].content";
  std::string text;
  std::vector<Finding> findings;
  // Bytes between findings in the host's array: sizeof(mgw_pii_finding) for a
  // 1.0 host, more for a host of a later minor version.
  std::uint32_t finding_size = sizeof(mgw_pii_finding);
  std::uint32_t struct_size = sizeof(mgw_pii_text);

  // Appends bytes that are not PII.
  TextSpec& plain(std::string_view s);
  // Appends a value and a finding over it.
  TextSpec& pii(std::string_view category, std::string_view value, bool critical = false);
};

// A copy of what a plugin passed to callback_record.
struct Recorded {
  std::string category;
  std::uint64_t offset = 0;
  std::uint64_t length = 0;
  bool critical = false;
  // Which element of the host's array the pointer was: -1 when it pointed
  // anywhere else.
  long long element = -1;
};

// Records what on_pii_apply sent to its sink, in order.
struct PiiRecorder {
  std::vector<std::string> rejects;
  std::vector<std::string> replaces;
  std::vector<Recorded> records;
  std::vector<std::string> events;  // "reject", "replace", "record"
  mgw_pii_sink sink{};

  // Where the findings array lies, to tell which element a record points at.
  const char* base = nullptr;
  std::size_t stride = 0;
  std::size_t count = 0;

  PiiRecorder();
  PiiRecorder(const PiiRecorder&) = delete;
  PiiRecorder& operator=(const PiiRecorder&) = delete;

  std::size_t calls() const { return events.size(); }
};

// The findings array of a TextSpec as a host lays it out: `finding_size` bytes
// apart, the bytes past each mgw_pii_finding filled with a pattern that is not
// a valid finding. Lives as long as the object (and the spec).
struct Laid {
  explicit Laid(const TextSpec& spec);
  mgw_pii_text text{};
  std::vector<std::uint64_t> storage;  // 8-byte aligned, like a host's array
};

// One scope; destroyed with the object.
class Scope {
 public:
  explicit Scope(const Instance& instance);
  ~Scope();
  Scope(const Scope&) = delete;
  Scope& operator=(const Scope&) = delete;

  mgw_pii_scope* get() const { return scope_; }

  struct Applied {
    mgw_status status = MGW_INTERNAL;
    PiiRecorder rec;
    // The text that goes upstream: the replacement, or the original.
    std::string sent;
  };
  // on_pii_apply for `spec` with a 1.0 sink.
  std::unique_ptr<Applied> apply(const TextSpec& spec) const;
  // The text sent upstream, failing the test when the call did not succeed or
  // rejected the request.
  std::string masked(const TextSpec& spec) const;

 private:
  Mode mode_;
  mgw_pii_scope* scope_ = nullptr;
};

// Names a hook table's apply for a raw call.
inline mgw_status raw_apply(Mode mode, mgw_pii_scope* scope, const mgw_pii_text* text,
                            const mgw_pii_sink* out) {
  return hooks(mode).on_pii_apply(scope, text, out);
}

// The names the dynamic linker can resolve in an ELF64 file.
std::vector<std::string> exported_symbols(const std::string& path);

}  // namespace pii_test
