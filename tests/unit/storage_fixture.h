// A real sqlite storage plugin in a temp dir, for tests of host code that
// talks to storage.
#pragma once

#include "plugins/plugin_library.h"
#include "plugins/storage.h"

#include <filesystem>
#include <memory>
#include <random>
#include <string>

namespace modelgw::testing {

struct TempStorage {
  std::filesystem::path dir;
  std::unique_ptr<plugins::Storage> storage;

  TempStorage() {
    dir = std::filesystem::temp_directory_path() / ("mgw-unit-" + std::to_string(std::random_device{}()));
    std::filesystem::create_directories(dir);
    auto lib = plugins::PluginLibrary::load(MGW_SQLITE_PLUGIN, MGW_KIND_STORAGE);
    storage = std::make_unique<plugins::Storage>(lib, nlohmann::json{{"path", (dir / "t.db").string()}});
  }
  ~TempStorage() {
    storage.reset();
    std::error_code ec;
    std::filesystem::remove_all(dir, ec);
  }
};

}  // namespace modelgw::testing
