// The entry symbol and descriptor: what the gateway's loader checks first.
#include "provider_harness.h"

#include <gtest/gtest.h>

#include <elf.h>

#include <cstring>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

namespace provider_test {
namespace {

TEST(Descriptor, NamesTheProviderWithThisAbi) {
  const mgw_plugin_descriptor& d = descriptor();
  EXPECT_EQ(d.struct_size, sizeof(mgw_plugin_descriptor));
  EXPECT_EQ(d.abi_major, MGW_ABI_MAJOR);
  EXPECT_EQ(d.abi_minor, MGW_ABI_MINOR);
  EXPECT_EQ(d.kind, MGW_KIND_PROVIDER);
  ASSERT_NE(d.name, nullptr);
  EXPECT_STREQ(d.name, MGW_PROVIDER_NAME);
  ASSERT_NE(d.version, nullptr);
  EXPECT_STREQ(d.version, "1.0.0");
  EXPECT_NE(d.hooks, nullptr);
}

TEST(Descriptor, HookTableIsCompleteAndSized) {
  const mgw_provider_hooks& h = hooks();
  EXPECT_EQ(h.struct_size, sizeof(mgw_provider_hooks));
  EXPECT_NE(h.on_provider_new, nullptr);
  EXPECT_NE(h.on_provider_destroy, nullptr);
  EXPECT_NE(h.on_build_request, nullptr);
  EXPECT_NE(h.on_parse_response, nullptr);
  EXPECT_NE(h.on_stream_new, nullptr);
  EXPECT_NE(h.on_stream_data, nullptr);
  EXPECT_NE(h.on_stream_end, nullptr);
  EXPECT_NE(h.on_stream_destroy, nullptr);
}

TEST(Descriptor, RefusesAnotherAbiMajorAndSaysWhy) {
  FakeHost host;
  mgw_host_api newer = *host.api();  // same callbacks, logs land in `host`
  newer.abi_major = MGW_ABI_MAJOR + 1;
  EXPECT_EQ(plugin_entry()(&newer), nullptr);
  const auto logs = host.logs();
  ASSERT_EQ(logs.size(), 1u);
  EXPECT_EQ(logs[0].first, MGW_LOG_ERROR);
  EXPECT_NE(logs[0].second.find("ABI major " + std::to_string(MGW_ABI_MAJOR + 1)), std::string::npos)
      << logs[0].second;
}

TEST(Descriptor, AcceptsAnotherAbiMinor) {
  FakeHost host;
  mgw_host_api other = *host.api();
  other.abi_minor = MGW_ABI_MINOR + 7;
  EXPECT_NE(plugin_entry()(&other), nullptr);
}

TEST(Descriptor, RefusesANullHost) {
  EXPECT_EQ(plugin_entry()(nullptr), nullptr);
}

// The names the dynamic linker can resolve in an ELF64 file: defined,
// non-local entries of .dynsym. (Boost's library_info reads .symtab instead,
// which says nothing about what is exported.)
std::vector<std::string> exported_symbols(const std::string& path) {
  const std::string bytes = [&] {
    std::ifstream in(path, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), {});
  }();
  std::vector<std::string> out;
  if (bytes.size() < sizeof(Elf64_Ehdr)) {
    return out;
  }
  Elf64_Ehdr eh;
  std::memcpy(&eh, bytes.data(), sizeof eh);
  auto section = [&](std::size_t i) {
    Elf64_Shdr sh;
    std::memcpy(&sh, bytes.data() + eh.e_shoff + i * sizeof(Elf64_Shdr), sizeof sh);
    return sh;
  };
  for (std::size_t i = 0; i < eh.e_shnum; ++i) {
    const Elf64_Shdr sh = section(i);
    if (sh.sh_type != SHT_DYNSYM) {
      continue;
    }
    const Elf64_Shdr strtab = section(sh.sh_link);
    for (std::size_t k = 0; k < sh.sh_size / sizeof(Elf64_Sym); ++k) {
      Elf64_Sym sym;
      std::memcpy(&sym, bytes.data() + sh.sh_offset + k * sizeof(Elf64_Sym), sizeof sym);
      if (sym.st_shndx == SHN_UNDEF || ELF64_ST_BIND(sym.st_info) == STB_LOCAL) {
        continue;
      }
      out.emplace_back(bytes.data() + strtab.sh_offset + sym.st_name);
    }
  }
  return out;
}

TEST(Descriptor, ExportsOnlyTheEntrySymbol) {
  EXPECT_EQ(exported_symbols(MGW_PROVIDER_PLUGIN), std::vector<std::string>{MGW_ENTRY_SYMBOL});
}

}  // namespace
}  // namespace provider_test
