#include "cli/cli.h"

#include <malloc.h>

int main(int argc, char** argv) {
  // Request bodies and built upstream requests are the large allocations (up
  // to server.max_body_bytes each). glibc raises its mmap threshold after the
  // first such buffer is freed, and from then on serves them from heap arenas
  // that keep the memory after a burst. A fixed threshold keeps every buffer
  // over 256 KiB in its own mapping, returned to the system when freed.
  mallopt(M_MMAP_THRESHOLD, 256 * 1024);
  return modelgw::cli::run(argc, argv);
}
