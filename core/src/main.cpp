#include "cli/cli.h"

int main(int argc, char** argv) {
  return modelgw::cli::run(argc, argv);
}
