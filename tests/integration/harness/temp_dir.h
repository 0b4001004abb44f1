// A fresh folder of the test's own under the system's temporary folder.
#pragma once

#include <stdlib.h>

#include <filesystem>
#include <stdexcept>
#include <string>

namespace it {

// Creates <tmp>/<prefix>-XXXXXX (mkdtemp, mode 0700) and returns its path.
// Throws std::runtime_error when it cannot. The caller removes it.
inline std::string make_temp_dir(const std::string& prefix) {
  std::string pattern = (std::filesystem::temp_directory_path() / (prefix + "-XXXXXX")).string();
  if (::mkdtemp(pattern.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
  return pattern;
}

}  // namespace it
