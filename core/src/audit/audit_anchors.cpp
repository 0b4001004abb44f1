#include "audit/audit_anchors.h"

#include <nlohmann/json.hpp>

#include <algorithm>

namespace modelgw::audit {
namespace {

// What the writer logs (audit_log.cpp): the message, then the heads as the
// `audit_checkpoint` field (a member of a JSON line, `key=value` in text).
constexpr std::string_view kCheckpointMessage = "audit checkpoint";
constexpr std::string_view kCheckpointField = "audit_checkpoint";

bool is_hex_hash(const std::string& s) {
  return s.size() == 64 && std::all_of(s.begin(), s.end(), [](char c) {
           return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
         });
}

// The heads in `[[tenant, seq, hash], ...]`, all or nothing.
std::optional<std::vector<std::pair<std::int64_t, Anchor>>> anchor_heads_of(const nlohmann::json& value) {
  if (!value.is_array() || value.empty()) return std::nullopt;
  std::vector<std::pair<std::int64_t, Anchor>> heads;
  heads.reserve(value.size());
  for (const auto& h : value) {
    if (!h.is_array() || h.size() != 3 || !h[0].is_number_integer() || !h[1].is_number_integer() ||
        !h[2].is_string()) {
      return std::nullopt;
    }
    const auto tenant = h[0].get<std::int64_t>();
    const auto seq = h[1].get<std::int64_t>();
    const auto& hash = h[2].get_ref<const std::string&>();
    if (tenant < 0 || seq < 1 || !is_hex_hash(hash)) return std::nullopt;
    heads.emplace_back(tenant, Anchor{seq, hash});
  }
  return heads;
}

// A text line ends with " audit checkpoint audit_checkpoint=[...]".
std::optional<std::vector<std::pair<std::int64_t, Anchor>>> anchor_text_line(std::string_view line) {
  const std::string marker =
      " " + std::string(kCheckpointMessage) + " " + std::string(kCheckpointField) + "=";
  const std::size_t at = line.find(marker);
  if (at == std::string_view::npos) return std::nullopt;
  const auto value = nlohmann::json::parse(line.substr(at + marker.size()), nullptr, false);
  if (value.is_discarded()) return std::nullopt;
  return anchor_heads_of(value);
}

// A JSON line: one object (after any prefix a journal adds) whose msg is the
// writer's and whose audit_checkpoint member holds the heads.
std::optional<std::vector<std::pair<std::int64_t, Anchor>>> anchor_json_line(std::string_view line) {
  const std::size_t open = line.find('{');
  if (open == std::string_view::npos) return std::nullopt;
  const auto object = nlohmann::json::parse(line.substr(open), nullptr, false);
  if (!object.is_object()) return std::nullopt;
  const auto msg = object.find("msg");
  const auto heads = object.find(kCheckpointField);
  if (msg == object.end() || !msg->is_string() || msg->get_ref<const std::string&>() != kCheckpointMessage ||
      heads == object.end()) {
    return std::nullopt;
  }
  return anchor_heads_of(*heads);
}

// Once thinned, a chain keeps only its newest anchors: one, or several that
// disagree at the same seq.
void add_anchor(AnchorSet& set, std::int64_t tenant, Anchor anchor) {
  auto& anchors = set.chains[tenant];
  if (set.thinned && !anchors.empty()) {
    if (anchor.seq < anchors.back().seq) return;
    if (anchor.seq > anchors.back().seq) anchors.clear();
  }
  const auto at = std::lower_bound(
      anchors.begin(), anchors.end(), anchor,
      [](const Anchor& a, const Anchor& b) { return a.seq < b.seq || (a.seq == b.seq && a.hash < b.hash); });
  if (at != anchors.end() && *at == anchor) return;  // logged again (several processes, several files)
  anchors.insert(at, std::move(anchor));
}

// Past the bound: each chain keeps its newest anchor (and any that disagree
// with it at the same seq), which still names a cut-off tail and a rewritten
// prefix; older ones only add where the chain forked earlier.
void thin_anchors(AnchorSet& set) {
  for (auto& [tenant, anchors] : set.chains) {
    const std::int64_t newest = anchors.back().seq;
    std::erase_if(anchors, [newest](const Anchor& a) { return a.seq != newest; });
  }
  set.thinned = true;
}

void use_anchor_line(AnchorSet& set, const std::string& line, std::size_t max_anchors, std::size_t& added) {
  auto heads = parse_anchor_line(line);
  if (!heads) {
    ++set.skipped;
    return;
  }
  ++set.lines;
  for (auto& [tenant, anchor] : *heads) {
    if (set.thinned && set.chains.size() >= max_anchors && !set.chains.count(tenant)) continue;
    add_anchor(set, tenant, std::move(anchor));
    if (!set.thinned && ++added > max_anchors) thin_anchors(set);
  }
}

}  // namespace

std::size_t AnchorSet::size() const {
  std::size_t n = 0;
  for (const auto& [tenant, anchors] : chains) n += anchors.size();
  return n;
}

const std::vector<Anchor>* AnchorSet::of(std::int64_t tenant) const {
  const auto it = chains.find(tenant);
  return it == chains.end() ? nullptr : &it->second;
}

std::optional<std::vector<std::pair<std::int64_t, Anchor>>> parse_anchor_line(std::string_view line) {
  // Cheap test first: almost every line of a log is something else.
  if (line.size() > kMaxLineBytes || line.find(kCheckpointField) == std::string_view::npos)
    return std::nullopt;
  while (!line.empty() && (line.back() == '\r' || line.back() == '\n')) line.remove_suffix(1);
  if (auto heads = anchor_text_line(line)) return heads;
  return anchor_json_line(line);
}

AnchorSet read_anchors(std::istream& log, std::size_t max_anchors) {
  AnchorSet set;
  std::size_t added = 0;
  std::string line;
  bool too_long = false;
  const auto finish_line = [&] {
    if (too_long) {
      ++set.skipped;
    } else if (line.find(kCheckpointField) != std::string::npos) {
      use_anchor_line(set, line, max_anchors, added);
    }
    line.clear();
    too_long = false;
  };
  // Read in blocks, so a line without an end costs kMaxLineBytes at most.
  char block[65536];
  while (log.read(block, sizeof block) || log.gcount() > 0) {
    const std::string_view got(block, static_cast<std::size_t>(log.gcount()));
    std::size_t from = 0;
    while (from < got.size()) {
      const std::size_t end = got.find('\n', from);
      const std::string_view piece = got.substr(from, end == std::string_view::npos ? end : end - from);
      if (!too_long && line.size() + piece.size() > kMaxLineBytes) {
        too_long = true;
        line.clear();
        line.shrink_to_fit();
      }
      if (!too_long) line.append(piece);
      if (end == std::string_view::npos) break;
      finish_line();
      from = end + 1;
    }
  }
  if (!line.empty() || too_long) finish_line();
  return set;
}

}  // namespace modelgw::audit
