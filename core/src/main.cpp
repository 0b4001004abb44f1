#include "cli/cli.h"

#include <malloc.h>

int main(int argc, char** argv) {
  // Request bodies and built upstream requests are the large allocations (up
  // to server.max_body_bytes each). glibc raises its mmap threshold after the
  // first such buffer is freed, and from then on serves them from heap arenas
  // that keep the memory after a burst. A fixed threshold keeps every buffer
  // over 256 KiB in its own mapping, returned to the system when freed.
  mallopt(M_MMAP_THRESHOLD, 256 * 1024);
  // glibc gives a thread arena's free top back to the system (madvise) as
  // soon as it passes 128 KiB. The usage writer's SQLite statements free that
  // much many times a second at load, and each give-back interrupts the
  // event loops on the other cores (a TLB shootdown): about a fifth of all
  // CPU at saturation with budgets on. Arenas keep up to 64 MiB of free top
  // instead; buffers over the mmap threshold above are still returned at once.
  mallopt(M_TRIM_THRESHOLD, 64 * 1024 * 1024);
  return modelgw::cli::run(argc, argv);
}
