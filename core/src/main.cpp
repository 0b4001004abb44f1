#include "cli/cli.h"

#include <malloc.h>

#if MODELGW_JEMALLOC
// jemalloc reads its settings from this symbol of the program (README.md,
// "Memory"; measured against glibc's malloc in issue 27's note):
// - oversize_threshold: a buffer over 256 KiB (request bodies and built
//   upstream requests, up to server.max_body_bytes) comes from an arena that
//   gives its pages back as soon as it is freed, as glibc's mmap threshold
//   did: a burst of large bodies is not kept;
// - background_thread, one: the smaller pages freed at load are given back
//   by jemalloc's own thread as they age (dirty_decay_ms, 10 s), not by an
//   event loop in the middle of a request.
extern "C" {
// NOLINTNEXTLINE(cppcoreguidelines-avoid-non-const-global-variables): the name and type jemalloc looks up
const char* malloc_conf = "oversize_threshold:262144,background_thread:true,max_background_threads:1";
}
#endif

int main(int argc, char** argv) {
#if !MODELGW_JEMALLOC
  // glibc's malloc (a sanitizer build, or MODELGW_JEMALLOC=OFF).
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
#endif
  return modelgw::cli::run(argc, argv);
}
