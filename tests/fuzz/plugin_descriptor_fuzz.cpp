// The loader's checks of what a plugin's entry symbol returns
// (plugins/plugin_descriptor.h), on descriptors and hook tables built from the
// input as a plugin in any language could lay them out: any struct_size, ABI
// version and kind, NULL or odd names, NULL or short tables, NULL hooks.
//
// Each block is allocated at exactly the size it declares (never less than
// the fields every version has: the descriptor's first eight bytes, a
// table's struct_size), so AddressSanitizer reports any read past what the
// plugin declared. Checks: a refusal is a PluginError naming the plugin; the
// checks accept a descriptor exactly when it is complete by ABI 1.0's frozen
// sizes (sizes computed here from the field names, not from this host's
// sizeof); and the host's copy of an accepted table holds the plugin's hooks
// where its struct_size covers them and NULL past it.
#include "plugins/plugin_descriptor.h"
#include "plugins/plugin_error.h"

#include <modelgw/plugin.h>

#include <fuzzer/FuzzedDataProvider.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

namespace {

using modelgw::plugins::PluginError;

#define SIZE_THROUGH(type, field) (offsetof(type, field) + sizeof(((type*)0)->field))
constexpr std::size_t kDescriptor10 = SIZE_THROUGH(mgw_plugin_descriptor, hooks);
constexpr std::size_t kDescriptorFixed = SIZE_THROUGH(mgw_plugin_descriptor, abi_minor);
constexpr std::size_t kProvider10 = SIZE_THROUGH(mgw_provider_hooks, on_stream_destroy);
constexpr std::size_t kPii10 = SIZE_THROUGH(mgw_pii_hooks, on_pii_apply);
constexpr std::size_t kStorage10 = SIZE_THROUGH(mgw_storage_hooks, on_prompt_activate);
#undef SIZE_THROUGH
constexpr std::size_t kFirstHook = offsetof(mgw_provider_hooks, on_provider_new);
static_assert(offsetof(mgw_pii_hooks, on_pii_new) == kFirstHook &&
              offsetof(mgw_storage_hooks, on_storage_open) == kFirstHook);
constexpr std::size_t kSlot = sizeof(void (*)());

[[noreturn]] void finding(const std::string& what) {
  std::fprintf(stderr, "FUZZ FINDING (plugin descriptor): %s\n", what.c_str());
  std::abort();
}

void some_hook() {}  // a non-NULL hook value; never called

// `declared` bytes (at least `least`) the plugin lays out; ASan guards the end.
struct Block {
  std::size_t size = 0;
  std::unique_ptr<unsigned char[]> bytes;

  Block(std::size_t declared, std::size_t least, FuzzedDataProvider& in)
      : size(declared < least ? least : declared), bytes(new unsigned char[size]) {
    const std::vector<unsigned char> fill = in.ConsumeBytes<unsigned char>(size);
    std::memset(bytes.get(), 0, size);
    if (!fill.empty()) std::memcpy(bytes.get(), fill.data(), fill.size());
  }
  // Writes `value` at `offset`, as much of it as lies inside the block.
  template <typename T>
  void put(std::size_t offset, const T& value) {
    if (offset >= size) return;
    std::memcpy(bytes.get() + offset, &value, std::min(sizeof value, size - offset));
  }
};

std::size_t hooks_1_0(mgw_plugin_kind kind) {
  switch (kind) {
    case MGW_KIND_PROVIDER:
      return kProvider10;
    case MGW_KIND_PII:
      return kPii10;
    default:
      return kStorage10;
  }
}

std::size_t host_table_size(mgw_plugin_kind kind) {
  switch (kind) {
    case MGW_KIND_PROVIDER:
      return sizeof(mgw_provider_hooks);
    case MGW_KIND_PII:
      return sizeof(mgw_pii_hooks);
    default:
      return sizeof(mgw_storage_hooks);
  }
}

// A name the checks accept: 1-64 bytes of printable ASCII before its NUL.
bool printable(const std::string& s) {
  const std::string text(s.c_str());
  if (text.empty() || text.size() > 64) return false;
  for (const char c : text) {
    if (static_cast<unsigned char>(c) < 0x21 || static_cast<unsigned char>(c) > 0x7e) return false;
  }
  return true;
}

// The host's copy of the table: the plugin's bytes its struct_size covers,
// zeros after.
template <typename Hooks>
void check_copy(const Block& table, std::uint32_t declared) {
  const Hooks copy = modelgw::plugins::copy_hooks<Hooks>(table.bytes.get());
  const std::size_t covered = declared < sizeof(Hooks) ? declared : sizeof(Hooks);
  const auto* host = reinterpret_cast<const unsigned char*>(&copy);
  if (std::memcmp(host, table.bytes.get(), covered) != 0) finding("the host's copy of the hooks differs");
  for (std::size_t i = covered; i < sizeof(Hooks); ++i) {
    if (host[i] != 0) finding("the host's copy has a hook past the plugin's struct_size");
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  FuzzedDataProvider in(data, size);
  const auto expected = static_cast<mgw_plugin_kind>(in.ConsumeIntegralInRange<int>(1, 3));
  const bool refuses = in.ConsumeIntegralInRange<int>(0, 15) == 0;

  // The descriptor's declared size: ABI 1.0's, this host's, or any.
  std::uint32_t descriptor_size = 0;
  switch (in.ConsumeIntegralInRange<int>(0, 2)) {
    case 0:
      descriptor_size = kDescriptor10;
      break;
    case 1:
      descriptor_size = sizeof(mgw_plugin_descriptor);
      break;
    default:
      descriptor_size = in.ConsumeIntegralInRange<std::uint32_t>(0, 256);
  }
  const std::uint16_t major = in.ConsumeBool() ? MGW_ABI_MAJOR : in.ConsumeIntegral<std::uint16_t>();
  const std::uint16_t minor = in.ConsumeIntegral<std::uint16_t>();
  const mgw_plugin_kind kind = in.ConsumeBool() ? expected : in.ConsumeIntegral<mgw_plugin_kind>();
  const bool has_name = in.ConsumeIntegralInRange<int>(0, 7) != 0;
  const std::string name = in.ConsumeRandomLengthString(80);
  const bool has_version = in.ConsumeIntegralInRange<int>(0, 7) != 0;
  const std::string version = in.ConsumeRandomLengthString(80);
  const bool has_hooks = in.ConsumeIntegralInRange<int>(0, 7) != 0;

  // The hook table: its declared size, then a NULL or a hook in each slot.
  std::uint32_t table_size = 0;
  switch (in.ConsumeIntegralInRange<int>(0, 2)) {
    case 0:
      table_size = static_cast<std::uint32_t>(hooks_1_0(expected));
      break;
    case 1:
      table_size = static_cast<std::uint32_t>(host_table_size(expected));
      break;
    default:
      table_size = in.ConsumeIntegralInRange<std::uint32_t>(0, 512);
  }
  const std::uint64_t null_hooks = in.ConsumeBool() ? 0 : in.ConsumeIntegral<std::uint64_t>();
  Block table(table_size, sizeof(std::uint32_t), in);
  table.put(0, table_size);
  bool hooks_set = true;  // every ABI 1.0 hook of `expected` is non-NULL
  for (std::size_t at = kFirstHook, i = 0; at < table.size; at += kSlot, ++i) {
    const bool null = (null_hooks >> (i % 64)) & 1;
    table.put(at, null ? nullptr : &some_hook);
    if (null && at + kSlot <= hooks_1_0(expected)) hooks_set = false;
  }

  Block descriptor(descriptor_size, kDescriptorFixed, in);
  descriptor.put(offsetof(mgw_plugin_descriptor, struct_size), descriptor_size);
  descriptor.put(offsetof(mgw_plugin_descriptor, abi_major), major);
  descriptor.put(offsetof(mgw_plugin_descriptor, abi_minor), minor);
  descriptor.put(offsetof(mgw_plugin_descriptor, kind), kind);
  descriptor.put(offsetof(mgw_plugin_descriptor, name), has_name ? name.c_str() : nullptr);
  descriptor.put(offsetof(mgw_plugin_descriptor, version), has_version ? version.c_str() : nullptr);
  descriptor.put(offsetof(mgw_plugin_descriptor, hooks),
                 has_hooks ? static_cast<const void*>(table.bytes.get()) : nullptr);

  const std::string where = "plugin /fuzz/mgw_fuzz.so";
  const auto* d = refuses ? nullptr : reinterpret_cast<const mgw_plugin_descriptor*>(descriptor.bytes.get());
  std::string refusal;
  try {
    modelgw::plugins::check_descriptor(where, d, expected);
  } catch (const PluginError& e) {
    refusal = e.what();
    if (refusal.rfind(where + ": ", 0) != 0) finding("a refusal that does not name the plugin: " + refusal);
  }

  const bool complete = !refuses && major == MGW_ABI_MAJOR && descriptor_size >= kDescriptor10 &&
                        kind == expected && has_name && printable(name) && has_version &&
                        printable(version) && has_hooks && table_size >= hooks_1_0(expected) && hooks_set;
  if (complete && !refusal.empty()) finding("a complete ABI 1.0 descriptor was refused: " + refusal);
  if (!complete && refusal.empty()) finding("an incomplete descriptor was accepted");
  if (!complete) return 0;
  switch (expected) {
    case MGW_KIND_PROVIDER:
      check_copy<mgw_provider_hooks>(table, table_size);
      break;
    case MGW_KIND_PII:
      check_copy<mgw_pii_hooks>(table, table_size);
      break;
    default:
      check_copy<mgw_storage_hooks>(table, table_size);
      break;
  }
  return 0;
}
