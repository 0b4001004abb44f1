// `modelgw import litellm FILE [--out OUT] [--force] [--plugins-dir DIR]
// [--state-dir DIR]`: a modelgw configuration from a LiteLLM proxy
// config.yaml, and the report of what became of each setting.
#pragma once

namespace modelgw::cli {

// argv[1] is "import". Exit code: 0 when a configuration was written, 1 when
// the input is not a LiteLLM config (or holds nothing modelgw serves);
// throws UsageError (exit 2) for a wrong command line, an unreadable FILE or
// an existing OUT without --force.
int cmd_import(int argc, char** argv);

}  // namespace modelgw::cli
