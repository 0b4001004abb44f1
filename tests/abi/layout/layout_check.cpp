// The layout tests' checker (see CMakeLists.txt and sdk/ABI_POLICY.md):
//
//   layout_check same <c-dump> <c++-dump>
//       C and C++ lay plugin.h out the same way.
//   layout_check complete <dump> <plugin.h>
//       abi_fields.def lists every constant and struct of plugin.h and
//       every field.
//   layout_check snapshot <dump> <snapshot> <regenerate-command>
//       the dump is the checked-in snapshot; when not, shows the diff and says
//       whether the ABI version allows the change.
//
// Exits 0 on success, 1 on failure, 2 on misuse, and 77 (a skipped test) when
// the snapshot was made for another pointer size than this build's.
#include <fstream>
#include <iostream>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>

#include "layout_completeness.hpp"
#include "layout_diff.hpp"
#include "layout_model.hpp"
#include "layout_verdict.hpp"

namespace {

constexpr int kSkipped = 77;

std::optional<std::string> read_file(const char* path) {
  std::ifstream file(path, std::ios::binary);
  if (!file) {
    std::cerr << "layout_check: cannot read " << path << '\n';
    return std::nullopt;
  }
  std::ostringstream text;
  text << file.rdbuf();
  return text.str();
}

std::optional<abi_layout::Layout> parse(const char* path, const std::string& text) {
  std::string error;
  std::optional<abi_layout::Layout> layout = abi_layout::parse_layout(text, error);
  if (!layout) std::cerr << "layout_check: " << path << ": " << error << '\n';
  return layout;
}

void print_diff(const abi_layout::LayoutDiff& diff, std::string_view before, std::string_view after) {
  std::cout << "--- " << before << "\n+++ " << after << '\n';
  for (const std::string& line : diff.lines) std::cout << line << '\n';
}

int check_same(const char* c_path, const char* cxx_path) {
  const std::optional<std::string> c_text = read_file(c_path);
  const std::optional<std::string> cxx_text = read_file(cxx_path);
  if (!c_text || !cxx_text) return 1;
  if (*c_text == *cxx_text) {
    std::cout << "C and C++ lay plugin.h out the same way.\n";
    return 0;
  }
  std::cout << "C and C++ lay plugin.h out differently: a type in plugin.h is not plain C.\n";
  const std::optional<abi_layout::Layout> c_layout = parse(c_path, *c_text);
  const std::optional<abi_layout::Layout> cxx_layout = parse(cxx_path, *cxx_text);
  if (c_layout && cxx_layout) print_diff(abi_layout::diff_layouts(*c_layout, *cxx_layout), "C", "C++");
  return 1;
}

int check_complete(const char* dump_path, const char* header_path) {
  const std::optional<std::string> dump_text = read_file(dump_path);
  const std::optional<std::string> header_text = read_file(header_path);
  if (!dump_text || !header_text) return 1;
  const std::optional<abi_layout::Layout> layout = parse(dump_path, *dump_text);
  if (!layout) return 1;
  bool complete = true;
  for (const std::string& problem : abi_layout::unlisted_fields(*layout)) {
    std::cout << problem << '\n';
    complete = false;
  }
  for (const std::string& name : abi_layout::unlisted_structs(*layout, *header_text)) {
    std::cout << "struct " << name << " of plugin.h is not in abi_fields.def\n";
    complete = false;
  }
  for (const std::string& name : abi_layout::unlisted_constants(*layout, *header_text)) {
    std::cout << "constant " << name << " of plugin.h is not in abi_fields.def\n";
    complete = false;
  }
  if (!complete) {
    std::cout << "List every constant, struct and field of plugin.h in tests/abi/layout/abi_fields.def.\n";
    return 1;
  }
  std::cout << "abi_fields.def lists all " << layout->constants.size() << " constants and "
            << layout->structs.size() << " structs of plugin.h, and their fields.\n";
  return 0;
}

int check_snapshot(const char* dump_path, const char* snapshot_path, std::string_view regenerate_command) {
  const std::optional<std::string> dump_text = read_file(dump_path);
  const std::optional<std::string> snapshot_text = read_file(snapshot_path);
  if (!dump_text || !snapshot_text) return 1;
  const std::optional<abi_layout::Layout> dump = parse(dump_path, *dump_text);
  const std::optional<abi_layout::Layout> snapshot = parse(snapshot_path, *snapshot_text);
  if (!dump || !snapshot) return 1;
  if (dump->pointer_size != snapshot->pointer_size) {
    std::cout << "The snapshot is for " << snapshot->pointer_size << "-byte pointers, this build has "
              << dump->pointer_size << ": skipped.\n";
    return kSkipped;
  }
  const abi_layout::LayoutDiff diff = abi_layout::diff_layouts(*snapshot, *dump);
  const abi_layout::Verdict verdict =
      abi_layout::judge_snapshot(*snapshot, *dump, diff, *dump_text == *snapshot_text, regenerate_command);
  if (verdict.outcome != abi_layout::Outcome::kMatches) {
    std::cout << "plugin.h's layout differs from sdk/abi/layout.txt:\n";
    print_diff(diff, "sdk/abi/layout.txt", "plugin.h");
  }
  std::cout << verdict.message << '\n';
  return verdict.outcome == abi_layout::Outcome::kMatches ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  const std::string_view mode = argc > 1 ? argv[1] : "";
  if (mode == "same" && argc == 4) return check_same(argv[2], argv[3]);
  if (mode == "complete" && argc == 4) return check_complete(argv[2], argv[3]);
  if (mode == "snapshot" && argc == 5) return check_snapshot(argv[2], argv[3], argv[4]);
  std::cerr << "usage: layout_check same <c-dump> <c++-dump>\n"
               "       layout_check complete <dump> <plugin.h>\n"
               "       layout_check snapshot <dump> <snapshot> <regenerate-command>\n";
  return 2;
}
