// The web console's files, embedded at build time (core/console/CMakeLists.txt).
#pragma once

#include <cstddef>
#include <span>
#include <string_view>

namespace modelgw::console_assets {

struct Asset {
  std::string_view name;          // "index.html", "app.js", ... (no leading '/')
  std::string_view content_type;  // with charset where it is text
  std::string_view identity;      // the file as built
  std::string_view gzip;          // the same, gzip-compressed
  std::string_view etag;          // a strong validator: "\"<sha256 prefix>\""
};

// Every file, sorted by name. Static storage: valid for the whole process.
std::span<const Asset> all();

}  // namespace modelgw::console_assets
