#pragma once

namespace modelgw::cli {

// The `modelgw` command line: serve, tenants, keys, check-config, version.
// Returns the process exit code.
int run(int argc, char** argv);

}  // namespace modelgw::cli
