#include "pii_harness.h"

#define BOOST_DLL_USE_STD_FS
#include <boost/dll/shared_library.hpp>

#include <elf.h>

#include <cstring>
#include <fstream>
#include <iterator>
#include <stdexcept>

namespace pii_test {
namespace {

// Loaded once and never unloaded, like the gateway does for its lifetime.
boost::dll::shared_library& library(Mode mode) {
  static boost::dll::shared_library block(MGW_PII_BLOCK_PLUGIN, boost::dll::load_mode::rtld_now);
  static boost::dll::shared_library mask(MGW_PII_MASK_PLUGIN, boost::dll::load_mode::rtld_now);
  static boost::dll::shared_library flag(MGW_PII_FLAG_PLUGIN, boost::dll::load_mode::rtld_now);
  switch (mode) {
    case Mode::block:
      return block;
    case Mode::mask:
      return mask;
    case Mode::flag:
      return flag;
  }
  throw std::logic_error("no such mode");
}

FakeHost& shared_host() {
  static FakeHost host;
  return host;
}

}  // namespace

const char* name(Mode mode) {
  switch (mode) {
    case Mode::block:
      return "block";
    case Mode::mask:
      return "mask";
    case Mode::flag:
      return "flag";
  }
  return "?";
}

const char* path(Mode mode) {
  switch (mode) {
    case Mode::block:
      return MGW_PII_BLOCK_PLUGIN;
    case Mode::mask:
      return MGW_PII_MASK_PLUGIN;
    case Mode::flag:
      return MGW_PII_FLAG_PLUGIN;
  }
  return "";
}

std::string param_name(const ::testing::TestParamInfo<Mode>& info) {
  return name(info.param);
}

mgw_plugin_entry_fn plugin_entry(Mode mode) {
  return library(mode).get<const mgw_plugin_descriptor*(const mgw_host_api*)>(MGW_ENTRY_SYMBOL);
}

const mgw_plugin_descriptor& descriptor(Mode mode) {
  const mgw_plugin_descriptor* d = plugin_entry(mode)(shared_host().api());
  if (d == nullptr) throw std::runtime_error("the plugin refused a conforming host");
  return *d;
}

const mgw_pii_hooks& hooks(Mode mode) {
  return *static_cast<const mgw_pii_hooks*>(descriptor(mode).hooks);
}

Instance::Instance(Mode mode, std::string_view options) : mode_(mode) {
  TextRecorder error;
  const mgw_status st = hooks(mode).on_pii_new(host_.api(), mgw::str(options), &pii_, &error.sink);
  if (st != MGW_OK || pii_ == nullptr) throw std::runtime_error("pii options refused: " + error.text);
}

Instance::~Instance() {
  if (pii_ != nullptr) hooks(mode_).on_pii_destroy(pii_);
}

std::pair<mgw_status, std::string> try_options(Mode mode, std::string_view options) {
  FakeHost host;
  TextRecorder error;
  mgw_pii* p = reinterpret_cast<mgw_pii*>(0x1);  // must be reset on failure
  const mgw_status st = hooks(mode).on_pii_new(host.api(), mgw::str(options), &p, &error.sink);
  if (st == MGW_OK) {
    if (p == nullptr) ADD_FAILURE() << "on_pii_new returned OK without a handle";
    hooks(mode).on_pii_destroy(p);
  } else if (p != nullptr) {
    ADD_FAILURE() << "on_pii_new left *out set after failing";
  }
  return {st, error.text};
}

TextSpec& TextSpec::plain(std::string_view s) {
  text.append(s);
  return *this;
}

TextSpec& TextSpec::pii(std::string_view category, std::string_view value, bool critical) {
  findings.push_back(Finding{std::string(category), text.size(), value.size(), critical});
  text.append(value);
  return *this;
}

PiiRecorder::PiiRecorder() {
  sink.struct_size = sizeof sink;
  sink.host_data = this;
  sink.callback_reject = [](void* self, mgw_str reason) {
    auto* r = static_cast<PiiRecorder*>(self);
    r->rejects.emplace_back(mgw::view(reason));
    r->events.emplace_back("reject");
  };
  sink.callback_replace = [](void* self, mgw_str text) {
    auto* r = static_cast<PiiRecorder*>(self);
    r->replaces.emplace_back(mgw::view(text));
    r->events.emplace_back("replace");
  };
  sink.callback_record = [](void* self, const mgw_pii_finding* f) {
    auto* r = static_cast<PiiRecorder*>(self);
    Recorded rec;
    rec.category.assign(mgw::view(f->category));
    rec.offset = f->offset;
    rec.length = f->length;
    rec.critical = f->critical != 0;
    const char* p = reinterpret_cast<const char*>(f);
    if (r->base != nullptr && r->stride != 0 && p >= r->base) {
      const auto delta = static_cast<std::size_t>(p - r->base);
      if (delta % r->stride == 0 && delta / r->stride < r->count) {
        rec.element = static_cast<long long>(delta / r->stride);
      }
    }
    r->records.push_back(std::move(rec));
    r->events.emplace_back("record");
  };
}

Laid::Laid(const TextSpec& spec) {
  const std::size_t stride = spec.finding_size;
  const std::size_t bytes = spec.findings.size() * stride;
  storage.assign((bytes + 7) / 8 + 1, 0xA5A5A5A5A5A5A5A5ull);  // what lies past a 1.0 element: not a finding
  auto* base = reinterpret_cast<char*>(storage.data());
  for (std::size_t i = 0; i < spec.findings.size(); ++i) {
    const Finding& f = spec.findings[i];
    mgw_pii_finding raw{};
    raw.category = mgw::str(f.category);
    raw.offset = f.offset;
    raw.length = f.length;
    raw.critical = f.critical ? 1 : 0;
    std::memcpy(base + i * stride, &raw, sizeof raw < stride ? sizeof raw : stride);
  }
  text.struct_size = spec.struct_size;
  text.path = mgw::str(spec.path);
  text.text = mgw::str(spec.text);
  text.findings = reinterpret_cast<const mgw_pii_finding*>(base);
  text.finding_count = spec.findings.size();
  text.finding_size = spec.finding_size;
}

Scope::Scope(const Instance& instance) : mode_(instance.mode()) {
  if (hooks(mode_).on_pii_scope_new(instance.get(), &scope_) != MGW_OK || scope_ == nullptr) {
    throw std::runtime_error("on_pii_scope_new failed");
  }
}

Scope::~Scope() {
  if (scope_ != nullptr) hooks(mode_).on_pii_scope_destroy(scope_);
}

std::unique_ptr<Scope::Applied> Scope::apply(const TextSpec& spec) const {
  auto a = std::make_unique<Applied>();
  const Laid laid(spec);
  a->rec.base = reinterpret_cast<const char*>(laid.text.findings);
  a->rec.stride = spec.finding_size;
  a->rec.count = spec.findings.size();
  a->status = hooks(mode_).on_pii_apply(scope_, &laid.text, &a->rec.sink);
  a->sent = a->rec.replaces.empty() ? spec.text : a->rec.replaces.back();
  return a;
}

std::string Scope::masked(const TextSpec& spec) const {
  const auto a = apply(spec);
  EXPECT_EQ(a->status, MGW_OK);
  EXPECT_TRUE(a->rec.rejects.empty());
  EXPECT_EQ(a->rec.replaces.size(), 1u);
  return a->sent;
}

// Defined, non-local entries of .dynsym. (Boost's library_info reads .symtab
// instead, which says nothing about what is exported.)
std::vector<std::string> exported_symbols(const std::string& file) {
  const std::string bytes = [&] {
    std::ifstream in(file, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), {});
  }();
  std::vector<std::string> out;
  if (bytes.size() < sizeof(Elf64_Ehdr)) return out;
  Elf64_Ehdr eh;
  std::memcpy(&eh, bytes.data(), sizeof eh);
  auto section = [&](std::size_t i) {
    Elf64_Shdr sh;
    std::memcpy(&sh, bytes.data() + eh.e_shoff + i * sizeof(Elf64_Shdr), sizeof sh);
    return sh;
  };
  for (std::size_t i = 0; i < eh.e_shnum; ++i) {
    const Elf64_Shdr sh = section(i);
    if (sh.sh_type != SHT_DYNSYM) continue;
    const Elf64_Shdr strtab = section(sh.sh_link);
    for (std::size_t k = 0; k < sh.sh_size / sizeof(Elf64_Sym); ++k) {
      Elf64_Sym sym;
      std::memcpy(&sym, bytes.data() + sh.sh_offset + k * sizeof(Elf64_Sym), sizeof sym);
      if (sym.st_shndx == SHN_UNDEF || ELF64_ST_BIND(sym.st_info) == STB_LOCAL) continue;
      out.emplace_back(bytes.data() + strtab.sh_offset + sym.st_name);
    }
  }
  return out;
}

}  // namespace pii_test
