// Anchors of the audit chains outside the store: the `audit checkpoint` lines
// the writer puts in the process log (audit_log.cpp), which operators ship
// off the host. `modelgw audit verify --anchor FILE` reads them back from a
// raw log file (JSON or text lines, a journald prefix allowed; every other
// line is ignored) so that a chain cut short, or rewritten, behind an
// anchored seq is named even when the store's own checkpoints were removed
// with it. Reading is bounded: a line over kMaxLineBytes is skipped, and past
// kMaxAnchors only the newest anchor of each chain is kept.
#pragma once

#include <cstddef>
#include <cstdint>
#include <istream>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace modelgw::audit {

// A chain's event `seq` had `hash` when a checkpoint was logged.
struct Anchor {
  std::int64_t seq = 0;
  std::string hash;
  bool operator==(const Anchor&) const = default;
};

struct AnchorSet {
  std::map<std::int64_t, std::vector<Anchor>> chains;  // tenant -> anchors, ascending seq, no duplicate
  std::size_t lines = 0;                               // checkpoint lines used
  std::size_t skipped = 0;  // lines past kMaxLineBytes, or checkpoint lines that do not parse
  bool thinned = false;     // past kMaxAnchors: only each chain's newest anchor was kept

  std::size_t size() const;
  const std::vector<Anchor>* of(std::int64_t tenant) const;
};

inline constexpr std::size_t kMaxLineBytes = 1 << 20;
inline constexpr std::size_t kMaxAnchors = 500'000;

// The heads one log line anchors, or nullopt when it is not a well-formed
// checkpoint line (tenant >= 0, seq >= 1, hash 64 lowercase hex each).
std::optional<std::vector<std::pair<std::int64_t, Anchor>>> parse_anchor_line(std::string_view line);

// Every checkpoint line of a log; past `max_anchors`, each chain's newest.
AnchorSet read_anchors(std::istream& log, std::size_t max_anchors = kMaxAnchors);

}  // namespace modelgw::audit
