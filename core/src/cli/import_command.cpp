#include "cli/import_command.h"

#include "cli/arguments.h"
#include "importer/litellm_import.h"

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

namespace modelgw::cli {
namespace {

constexpr const char* kImportUsage =
    "usage: modelgw import litellm FILE [--out OUT] [--force] [--plugins-dir DIR] [--state-dir DIR]";

struct ImportArgs {
  std::vector<std::string> words;
  std::map<std::string, std::string> options;
  bool force = false;
};

ImportArgs parse_import_args(int argc, char** argv) {
  ImportArgs a;
  for (int i = 2; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "--force") {
      a.force = true;
      continue;
    }
    if (arg.rfind("--", 0) != 0 || arg.size() == 2) {
      a.words.push_back(std::move(arg));
      continue;
    }
    std::string name = arg.substr(2);
    std::string value;
    if (const auto eq = name.find('='); eq != std::string::npos) {
      value = name.substr(eq + 1);
      name.resize(eq);
    } else if (i + 1 < argc) {
      value = argv[++i];
    } else {
      throw UsageError(arg + " needs a value\n" + kImportUsage);
    }
    if (name != "out" && name != "plugins-dir" && name != "state-dir") {
      throw UsageError("unknown option --" + name + " for import\n" + kImportUsage);
    }
    if (value.empty()) throw UsageError("--" + name + " needs a value\n" + kImportUsage);
    a.options[name] = value;
  }
  return a;
}

std::string read_input(const std::string& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec))
    throw UsageError(path + " is a folder, not a LiteLLM config.yaml");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw UsageError("cannot read " + path);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// Writes beside `out` first, then renames: a reader never sees half a file.
void write_output(const std::string& out, const std::string& text, bool force) {
  std::error_code ec;
  if (!force && std::filesystem::exists(out, ec)) {
    throw UsageError(out + " exists; add --force to replace it");
  }
  const std::string temp = out + ".tmp-" + std::to_string(::getpid());
  {
    std::ofstream file(temp, std::ios::binary | std::ios::trunc);
    file << text;
    file.close();
    if (!file) {
      std::filesystem::remove(temp, ec);
      throw UsageError("cannot write " + out);
    }
  }
  std::filesystem::rename(temp, out, ec);
  if (ec) {
    std::filesystem::remove(temp, ec);
    throw UsageError("cannot write " + out);
  }
}

}  // namespace

int cmd_import(int argc, char** argv) {
  const ImportArgs args = parse_import_args(argc, argv);
  if (args.words.empty())
    throw UsageError(std::string("missing the source format (litellm)\n") + kImportUsage);
  if (args.words[0] != "litellm") {
    throw UsageError("cannot import '" + args.words[0] + "': the one format is litellm\n" + kImportUsage);
  }
  if (args.words.size() < 2)
    throw UsageError(std::string("missing FILE (LiteLLM's config.yaml)\n") + kImportUsage);
  if (args.words.size() > 2) throw UsageError("unexpected '" + args.words[2] + "'\n" + kImportUsage);
  const std::string& file = args.words[1];
  const std::string text = read_input(file);

  importer::ImportOptions options;
  options.source_name = std::filesystem::path(file).filename().string();
  for (char& c : options.source_name) {
    if (static_cast<unsigned char>(c) < 0x20) c = '?';
  }
  if (auto it = args.options.find("plugins-dir"); it != args.options.end()) options.plugins_dir = it->second;
  if (auto it = args.options.find("state-dir"); it != args.options.end()) options.state_dir = it->second;

  importer::ImportResult result;
  try {
    result = importer::import_litellm(text, options);
  } catch (const importer::ImportError& e) {
    if (!e.rows.empty()) std::cerr << importer::format_report(e.rows);
    std::cerr << "modelgw: " << file << ": " << e.what() << "\n";
    return 1;
  }
  const auto out = args.options.find("out");
  if (out == args.options.end()) {
    std::cout << result.config_yaml << std::flush;
    std::cerr << importer::format_report(result.rows);
    return 0;
  }
  write_output(out->second, result.config_yaml, args.force);
  std::cout << importer::format_report(result.rows) << "\nwrote " << out->second
            << "; check it (with the variables above set) with: modelgw check-config " << out->second << "\n";
  return 0;
}

}  // namespace modelgw::cli
