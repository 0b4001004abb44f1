// pii_eval: precision and recall of modelgw::pii::Detector over a labelled
// corpus (JSON Lines, as written by generate_corpus.py; see README.md).
//
// Usage: pii_eval CORPUS.jsonl [--min-recall [CAT=]R]... [--min-precision [CAT=]P]...
//                              [--show-errors N] [--json]
//
// CAT is a category wire name or "critical" (each critical category and the
// four pooled); without CAT the threshold is for "critical". Defaults:
// --min-recall critical=0.99 --min-precision critical=0.97.
// Exit status: 0 all thresholds met, 1 some missed, 2 bad usage or input.

#include "pii/category.h"
#include "pii/detector.h"
#include "pii/finding.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace {

using modelgw::pii::Category;
using modelgw::pii::kAllCategories;
using modelgw::pii::kCategoryCount;
using nlohmann::json;

constexpr std::array<Category, 4> kCritical = {Category::payment_card, Category::ssn, Category::iban,
                                               Category::secret};

std::size_t index(Category c) {
  return static_cast<std::size_t>(c);
}
std::string cat_name(Category c) {
  return std::string(modelgw::pii::name(c));
}

bool is_critical(Category c) {
  return std::find(kCritical.begin(), kCritical.end(), c) != kCritical.end();
}

// A labelled span of a record: a planted value (gold) or a decoy.
struct Span {
  std::uint32_t start = 0;
  std::uint32_t end = 0;
  Category category = Category::email;
  std::string kind;
};

struct Record {
  std::string id;
  std::string text;
  std::vector<Span> gold;
  std::vector<Span> decoys;
};

struct BadInput : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// ---------------------------------------------------------------------------
// Options
// ---------------------------------------------------------------------------

struct Threshold {
  std::string scope;  // a category name or "critical"
  bool recall = true;
  double min = 0;
};

struct Options {
  std::string corpus;
  std::vector<Threshold> thresholds;
  std::size_t show_errors = 0;
  bool show = false;
  bool json = false;
};

[[noreturn]] void usage_error(const std::string& message) {
  std::fprintf(
      stderr,
      "pii_eval: %s\n"
      "usage: pii_eval CORPUS.jsonl [--min-recall [CAT=]R]... [--min-precision [CAT=]P]...\n"
      "                [--show-errors N] [--json]\n"
      "  CAT: email, phone, payment_card, ssn, iban, ip_address, secret, date_of_birth or critical\n",
      message.c_str());
  std::exit(2);
}

Threshold parse_threshold(std::string_view spec, bool recall) {
  Threshold t;
  t.recall = recall;
  t.scope = "critical";
  if (const auto eq = spec.find('='); eq != std::string_view::npos) {
    t.scope = std::string(spec.substr(0, eq));
    spec.remove_prefix(eq + 1);
    if (t.scope != "critical" && !modelgw::pii::category_from_name(t.scope)) {
      usage_error("unknown category '" + t.scope + "'");
    }
  }
  const std::string value(spec);
  char* end = nullptr;
  t.min = std::strtod(value.c_str(), &end);
  if (value.empty() || end != value.c_str() + value.size() || !(t.min >= 0.0 && t.min <= 1.0)) {
    usage_error("bad threshold '" + value + "' (want a number in [0, 1])");
  }
  return t;
}

Options parse_options(int argc, char** argv) {
  Options o;
  bool recall_set = false;
  bool precision_set = false;
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    auto value = [&](std::string_view flag) -> std::string_view {
      if (i + 1 >= argc) usage_error(std::string(flag) + " needs a value");
      return argv[++i];
    };
    if (arg == "--min-recall" || arg == "--min-precision") {
      const bool recall = arg == "--min-recall";
      Threshold t = parse_threshold(value(arg), recall);
      (recall ? recall_set : precision_set) |= t.scope == "critical";
      o.thresholds.push_back(std::move(t));
    } else if (arg == "--show-errors") {
      const std::string v(value(arg));
      char* end = nullptr;
      const unsigned long n = std::strtoul(v.c_str(), &end, 10);
      if (v.empty() || end != v.c_str() + v.size()) usage_error("bad --show-errors value '" + v + "'");
      o.show_errors = n;
      o.show = true;
    } else if (arg == "--json") {
      o.json = true;
    } else if (arg == "-h" || arg == "--help") {
      usage_error("help");
    } else if (!arg.empty() && arg[0] == '-') {
      usage_error("unknown option '" + std::string(arg) + "'");
    } else if (o.corpus.empty()) {
      o.corpus = arg;
    } else {
      usage_error("more than one corpus given");
    }
  }
  if (o.corpus.empty()) usage_error("no corpus given");
  if (!recall_set) o.thresholds.push_back({"critical", true, 0.99});
  if (!precision_set) o.thresholds.push_back({"critical", false, 0.97});
  return o;
}

// ---------------------------------------------------------------------------
// Corpus
// ---------------------------------------------------------------------------

std::vector<Span> read_spans(const json& rec, const char* field, std::size_t text_size, bool required) {
  std::vector<Span> spans;
  const auto it = rec.find(field);
  if (it == rec.end()) {
    if (required) throw BadInput(std::string("missing \"") + field + "\"");
    return spans;
  }
  if (!it->is_array()) throw BadInput(std::string("\"") + field + "\" is not an array");
  for (const json& e : *it) {
    if (!e.is_object()) throw BadInput(std::string("an element of \"") + field + "\" is not an object");
    const auto cat = e.find("category");
    const auto start = e.find("start");
    const auto end = e.find("end");
    if (cat == e.end() || !cat->is_string()) throw BadInput("a span has no string \"category\"");
    const auto category = modelgw::pii::category_from_name(cat->get<std::string>());
    if (!category) throw BadInput("unknown category \"" + cat->get<std::string>() + "\"");
    if (start == e.end() || end == e.end() || !start->is_number_unsigned() || !end->is_number_unsigned()) {
      throw BadInput("a span has no unsigned \"start\"/\"end\"");
    }
    const auto s = start->get<std::uint64_t>();
    const auto en = end->get<std::uint64_t>();
    if (s >= en || en > text_size) {
      throw BadInput("span [" + std::to_string(s) + ", " + std::to_string(en) + ") is outside the text (" +
                     std::to_string(text_size) + " bytes) or empty");
    }
    Span span{static_cast<std::uint32_t>(s), static_cast<std::uint32_t>(en), *category, ""};
    if (const auto kind = e.find("kind"); kind != e.end() && kind->is_string())
      span.kind = kind->get<std::string>();
    spans.push_back(std::move(span));
  }
  std::sort(spans.begin(), spans.end(), [](const Span& a, const Span& b) { return a.start < b.start; });
  return spans;
}

std::vector<Record> read_corpus(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw BadInput("cannot open " + path);
  std::vector<Record> records;
  std::string line;
  std::size_t line_no = 0;
  while (std::getline(in, line)) {
    ++line_no;
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    try {
      const json rec = json::parse(line);
      if (!rec.is_object()) throw BadInput("not a JSON object");
      Record r;
      const auto text = rec.find("text");
      if (text == rec.end() || !text->is_string()) throw BadInput("missing string \"text\"");
      r.text = text->get<std::string>();
      if (r.text.size() >= (std::size_t{1} << 32)) throw BadInput("text of 4 GiB or more");
      if (const auto id = rec.find("id"); id != rec.end() && id->is_string()) {
        r.id = id->get<std::string>();
      } else {
        r.id = "line " + std::to_string(line_no);
      }
      r.gold = read_spans(rec, "entities", r.text.size(), true);
      r.decoys = read_spans(rec, "decoys", r.text.size(), false);
      records.push_back(std::move(r));
    } catch (const json::exception& e) {
      throw BadInput(path + ":" + std::to_string(line_no) + ": " + e.what());
    } catch (const BadInput& e) {
      throw BadInput(path + ":" + std::to_string(line_no) + ": " + e.what());
    }
  }
  if (in.bad()) throw BadInput("error reading " + path);
  if (records.empty()) throw BadInput(path + ": no records");
  return records;
}

// ---------------------------------------------------------------------------
// Scoring
// ---------------------------------------------------------------------------

struct Counts {
  std::size_t gold = 0;
  std::size_t found = 0;
  std::size_t tp = 0;
  std::size_t exact = 0;  // true positives whose span equals the gold span
  std::size_t fp = 0;
  std::size_t fn = 0;

  Counts& operator+=(const Counts& o) {
    gold += o.gold;
    found += o.found;
    tp += o.tp;
    exact += o.exact;
    fp += o.fp;
    fn += o.fn;
    return *this;
  }
  // An empty denominator counts as perfect (nothing found: nothing wrong).
  double precision() const { return found == 0 ? 1.0 : static_cast<double>(tp) / static_cast<double>(found); }
  double recall() const { return gold == 0 ? 1.0 : static_cast<double>(tp) / static_cast<double>(gold); }
};

// One error for the report: where, and why (a decoy kind, a gold kind, ...).
struct Error {
  const Record* record;
  std::uint32_t start;
  std::uint32_t end;
  std::string reason;
};

struct CategoryResult {
  Counts counts;
  std::vector<Error> fps;
  std::vector<Error> fns;
  std::vector<Error> inexact;  // true positives whose span differs from the gold span
  std::map<std::string, std::size_t> fp_reasons;
  std::map<std::string, std::size_t> fn_reasons;
};

std::string printable(std::string_view text, std::size_t from, std::size_t to, std::size_t max);

bool overlaps(std::uint32_t a0, std::uint32_t a1, std::uint32_t b0, std::uint32_t b1) {
  return a0 < b1 && b0 < a1;
}

// Why a false positive was reported: the labelled span it hits, if any.
std::string fp_reason(const Record& r, const modelgw::pii::Finding& f, Category c, bool hit_claimed_gold) {
  const std::uint32_t f0 = f.offset;
  const std::uint32_t f1 = f.offset + f.length;
  if (hit_claimed_gold) return "split: a second finding on one value";
  for (const Span& d : r.decoys) {
    if (overlaps(f0, f1, d.start, d.end)) {
      return "decoy " + (d.kind.empty() ? cat_name(d.category) : d.kind);
    }
  }
  for (const Span& g : r.gold) {
    if (g.category != c && overlaps(f0, f1, g.start, g.end)) {
      return "on a " + cat_name(g.category) + " value" + (g.kind.empty() ? "" : " (" + g.kind + ")");
    }
  }
  return "unlabelled text";
}

void score_record(const Record& r, const std::vector<modelgw::pii::Finding>& findings,
                  std::array<CategoryResult, kCategoryCount>& results) {
  std::vector<bool> claimed(r.gold.size(), false);
  for (const auto& f : findings) {
    CategoryResult& res = results[index(f.category)];
    ++res.counts.found;
    const std::uint32_t f0 = f.offset;
    const std::uint32_t f1 = f.offset + f.length;
    bool matched = false;
    bool hit_claimed = false;
    for (std::size_t i = 0; i < r.gold.size(); ++i) {
      const Span& g = r.gold[i];
      if (g.category != f.category || !overlaps(f0, f1, g.start, g.end)) continue;
      if (claimed[i]) {
        hit_claimed = true;
        continue;
      }
      claimed[i] = true;
      matched = true;
      ++res.counts.tp;
      if (g.start == f0 && g.end == f1) {
        ++res.counts.exact;
      } else {
        res.inexact.push_back({&r, g.start, g.end,
                               "found [" + std::to_string(f0) + ", " + std::to_string(f1) + ") for gold [" +
                                   std::to_string(g.start) + ", " + std::to_string(g.end) + ") " + g.kind +
                                   ": " + printable(r.text, f0, f1, 60)});
      }
      break;
    }
    if (!matched) {
      ++res.counts.fp;
      std::string reason = fp_reason(r, f, f.category, hit_claimed);
      ++res.fp_reasons[reason];
      res.fps.push_back({&r, f0, f1, std::move(reason)});
    }
  }
  for (std::size_t i = 0; i < r.gold.size(); ++i) {
    const Span& g = r.gold[i];
    CategoryResult& res = results[index(g.category)];
    ++res.counts.gold;
    if (claimed[i]) continue;
    ++res.counts.fn;
    std::string reason = g.kind.empty() ? cat_name(g.category) : g.kind;
    for (const auto& f : findings) {
      if (f.category != g.category && overlaps(f.offset, f.offset + f.length, g.start, g.end)) {
        reason += " (found as " + cat_name(f.category) + ")";
        break;
      }
    }
    ++res.fn_reasons[reason];
    res.fns.push_back({&r, g.start, g.end, std::move(reason)});
  }
}

// ---------------------------------------------------------------------------
// Reporting
// ---------------------------------------------------------------------------

bool is_continuation(unsigned char c) {
  return (c & 0xC0) == 0x80;
}

// Printable form of text[from, to): control characters escaped, cut to
// `max` bytes (keeping both ends) on UTF-8 character boundaries.
std::string printable(std::string_view text, std::size_t from, std::size_t to, std::size_t max) {
  std::string out;
  auto append = [&](std::size_t a, std::size_t b) {
    for (std::size_t i = a; i < b; ++i) {
      const char c = text[i];
      if (c == '\n') {
        out += "\\n";
      } else if (c == '\t') {
        out += "\\t";
      } else if (c == '\r') {
        out += "\\r";
      } else if (static_cast<unsigned char>(c) < 0x20) {
        out += '?';
      } else {
        out += c;
      }
    }
  };
  if (to - from <= max) {
    append(from, to);
    return out;
  }
  std::size_t head = from + max / 2;
  while (head > from && is_continuation(static_cast<unsigned char>(text[head]))) --head;
  std::size_t tail = to - max / 2;
  while (tail < to && is_continuation(static_cast<unsigned char>(text[tail]))) ++tail;
  append(from, head);
  out += "...";
  append(tail, to);
  return out;
}

// The error's value marked with [[ ]] inside a window of context.
std::string in_context(const Error& e) {
  constexpr std::size_t kWindow = 40;
  const std::string_view text = e.record->text;
  std::size_t from = e.start > kWindow ? e.start - kWindow : 0;
  while (from > 0 && is_continuation(static_cast<unsigned char>(text[from]))) --from;
  std::size_t to = std::min(text.size(), std::size_t{e.end} + kWindow);
  while (to < text.size() && is_continuation(static_cast<unsigned char>(text[to]))) ++to;
  return printable(text, from, e.start, kWindow + 8) + "[[" + printable(text, e.start, e.end, 120) + "]]" +
         printable(text, e.end, to, kWindow + 8);
}

std::vector<std::pair<std::string, std::size_t>> top(const std::map<std::string, std::size_t>& m,
                                                     std::size_t n) {
  std::vector<std::pair<std::string, std::size_t>> v(m.begin(), m.end());
  std::stable_sort(v.begin(), v.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
  if (v.size() > n) v.resize(n);
  return v;
}

std::string fmt_ratio(std::size_t den, double value) {
  if (den == 0) return "-";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.4f", value);
  return buf;
}

void print_row(const std::string& label, const Counts& c) {
  std::printf("%-14s %6zu %6zu %6zu %6zu %6zu %6zu %10s %8s\n", label.c_str(), c.gold, c.found, c.tp, c.exact,
              c.fp, c.fn, fmt_ratio(c.found, c.precision()).c_str(), fmt_ratio(c.gold, c.recall()).c_str());
}

json counts_json(const Counts& c) {
  return {
      {"gold", c.gold}, {"found", c.found},           {"tp", c.tp},          {"exact", c.exact}, {"fp", c.fp},
      {"fn", c.fn},     {"precision", c.precision()}, {"recall", c.recall()}};
}

json errors_json(const std::vector<Error>& errors, std::size_t n) {
  json out = json::array();
  for (std::size_t i = 0; i < errors.size() && i < n; ++i) {
    const Error& e = errors[i];
    out.push_back({{"id", e.record->id},
                   {"start", e.start},
                   {"end", e.end},
                   {"reason", e.reason},
                   {"context", in_context(e)}});
  }
  return out;
}

struct Check {
  std::string scope;  // category name, or "critical" for the pool
  std::string metric;
  double min;
  double value;
  bool ok;
};

}  // namespace

int main(int argc, char** argv) {
  const Options opt = parse_options(argc, argv);

  std::vector<Record> records;
  try {
    records = read_corpus(opt.corpus);
  } catch (const BadInput& e) {
    std::fprintf(stderr, "pii_eval: %s\n", e.what());
    return 2;
  }

  const modelgw::pii::Detector detector;
  std::array<CategoryResult, kCategoryCount> results;
  std::vector<modelgw::pii::Finding> findings;
  std::size_t bytes = 0;
  std::chrono::steady_clock::duration scan_time{};
  for (const Record& r : records) {
    findings.clear();
    const auto t0 = std::chrono::steady_clock::now();
    detector.scan(r.text, findings);
    scan_time += std::chrono::steady_clock::now() - t0;
    bytes += r.text.size();
    for (const auto& f : findings) {
      if (std::size_t{f.offset} + f.length > r.text.size() || f.length == 0) {
        std::fprintf(stderr, "pii_eval: %s: the detector returned a finding [%u, +%u) outside the text\n",
                     r.id.c_str(), f.offset, f.length);
        return 1;
      }
    }
    score_record(r, findings, results);
  }
  const double scan_ms = std::chrono::duration<double, std::milli>(scan_time).count();

  Counts critical;
  Counts all;
  for (Category c : kAllCategories) {
    all += results[index(c)].counts;
    if (is_critical(c)) critical += results[index(c)].counts;
  }

  // Thresholds: "critical" applies to each critical category and to the pool.
  std::vector<Check> checks;
  for (const Threshold& t : opt.thresholds) {
    auto check = [&](const std::string& scope, const Counts& c) {
      const double v = t.recall ? c.recall() : c.precision();
      checks.push_back({scope, t.recall ? "recall" : "precision", t.min, v, v >= t.min});
    };
    if (t.scope == "critical") {
      for (Category c : kCritical) check(cat_name(c), results[index(c)].counts);
      check("critical", critical);
    } else {
      check(t.scope, results[index(*modelgw::pii::category_from_name(t.scope))].counts);
    }
  }
  const bool passed = std::all_of(checks.begin(), checks.end(), [](const Check& c) { return c.ok; });

  if (opt.json) {
    json out;
    out["corpus"] = opt.corpus;
    out["records"] = records.size();
    out["bytes"] = bytes;
    out["scan_ms"] = scan_ms;
    for (Category c : kAllCategories) {
      const CategoryResult& res = results[index(c)];
      json cj = counts_json(res.counts);
      cj["critical"] = is_critical(c);
      if (opt.show) {
        cj["fp_by_reason"] = res.fp_reasons;
        cj["fn_by_kind"] = res.fn_reasons;
        cj["false_positives"] = errors_json(res.fps, opt.show_errors);
        cj["false_negatives"] = errors_json(res.fns, opt.show_errors);
        cj["inexact"] = errors_json(res.inexact, opt.show_errors);
      }
      out["categories"][cat_name(c)] = cj;
    }
    out["critical"] = counts_json(critical);
    out["all"] = counts_json(all);
    out["checks"] = json::array();
    for (const Check& c : checks) {
      out["checks"].push_back(
          {{"scope", c.scope}, {"metric", c.metric}, {"min", c.min}, {"value", c.value}, {"ok", c.ok}});
    }
    out["passed"] = passed;
    std::printf("%s\n", out.dump(2).c_str());
  } else {
    std::printf("pii_eval: %zu records, %zu bytes, scanned in %.1f ms (%.1f MB/s)\n\n", records.size(), bytes,
                scan_ms, scan_ms > 0 ? static_cast<double>(bytes) / 1e3 / scan_ms : 0.0);
    std::printf("%-14s %6s %6s %6s %6s %6s %6s %10s %8s\n", "category", "gold", "found", "TP", "exact", "FP",
                "FN", "precision", "recall");
    for (Category c : kAllCategories) {
      print_row(cat_name(c) + (is_critical(c) ? "*" : ""), results[index(c)].counts);
    }
    std::printf("%s\n", std::string(80, '-').c_str());
    print_row("critical*", critical);
    print_row("all", all);
    std::printf(
        "(* critical; a finding is a TP when it overlaps an unmatched gold value of its category;\n"
        " exact = TP with the same span)\n");

    if (opt.show) {
      for (Category c : kAllCategories) {
        const CategoryResult& res = results[index(c)];
        if (res.fps.empty() && res.fns.empty() && res.inexact.empty()) continue;
        std::printf("\n== %s: %zu false positives, %zu false negatives, %zu inexact spans\n",
                    cat_name(c).c_str(), res.fps.size(), res.fns.size(), res.inexact.size());
        if (!res.fps.empty()) {
          std::printf("  false positives by what they hit:\n");
          for (const auto& [reason, n] : top(res.fp_reasons, 10))
            std::printf("    %5zu  %s\n", n, reason.c_str());
        }
        if (!res.fns.empty()) {
          std::printf("  false negatives by kind:\n");
          for (const auto& [reason, n] : top(res.fn_reasons, 10))
            std::printf("    %5zu  %s\n", n, reason.c_str());
        }
        for (std::size_t i = 0; i < res.fps.size() && i < opt.show_errors; ++i) {
          const Error& e = res.fps[i];
          std::printf("  FP %s [%s]: %s\n", e.record->id.c_str(), e.reason.c_str(), in_context(e).c_str());
        }
        for (std::size_t i = 0; i < res.fns.size() && i < opt.show_errors; ++i) {
          const Error& e = res.fns[i];
          std::printf("  FN %s [%s]: %s\n", e.record->id.c_str(), e.reason.c_str(), in_context(e).c_str());
        }
        for (std::size_t i = 0; i < res.inexact.size() && i < opt.show_errors; ++i) {
          const Error& e = res.inexact[i];
          std::printf("  ~  %s %s\n", e.record->id.c_str(), e.reason.c_str());
        }
      }
    }
    std::printf("\n");
    for (const Check& c : checks) {
      if (!c.ok) {
        std::printf("FAIL: %s %s %.4f < %.4f\n", c.scope.c_str(), c.metric.c_str(), c.value, c.min);
      }
    }
    std::printf("%s: %zu threshold checks\n", passed ? "PASS" : "FAIL", checks.size());
  }
  if (!passed && opt.json) {
    for (const Check& c : checks) {
      if (!c.ok)
        std::fprintf(stderr, "FAIL: %s %s %.4f < %.4f\n", c.scope.c_str(), c.metric.c_str(), c.value, c.min);
    }
  }
  return passed ? 0 : 1;
}
