// on_stream_*: garbage streams end in one error, never a crash; each stream
// fixture gives its expected events, and exactly the same events whatever
// the pieces its bytes arrive in.
#include "checks.h"
#include "expectations.h"
#include "findings.h"
#include "hostile_inputs.h"
#include "text_rules.h"

#include <fstream>
#include <random>

namespace mgw::testkit {
namespace {

std::vector<std::string_view> pieces_of(std::string_view s, std::size_t size) {
  std::vector<std::string_view> out;
  for (std::size_t i = 0; i < s.size(); i += size) out.push_back(s.substr(i, size));
  return out;
}

std::vector<std::string_view> split_at(std::string_view s, std::size_t at) {
  return {s.substr(0, at), s.substr(at)};
}

std::vector<std::string_view> random_pieces(std::string_view s, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_int_distribution<std::size_t> len(1, 64);
  std::vector<std::string_view> out;
  for (std::size_t i = 0; i < s.size();) {
    const std::size_t n = std::min(len(rng), s.size() - i);
    out.push_back(s.substr(i, n));
    i += n;
  }
  return out;
}

std::vector<HostileText> garbage_streams() {
  std::mt19937 rng(20240601);
  std::string noise(64 * 1024, '\0');
  for (char& c : noise) c = static_cast<char>(rng() & 0xFF);
  std::string comments;
  for (int i = 0; i < 1000; ++i) comments += ": keep-alive\n\n";
  return {
      {"no bytes at all", ""},
      {"64 KiB of random bytes", noise},
      {"invalid UTF-8 in a data line", "data: \xFF\xFE\xFD\n\n"},
      {"a data line that is not JSON", "data: {not json\n\n"},
      {"a data line of the wrong JSON shape", "data: [1, 2, 3]\n\ndata: \"text\"\n\ndata: 42\n\n"},
      {"a data line 100000 arrays deep", "data: " + nested_arrays(100000) + "\n\n"},
      {"an error event of wrong types", "event: error\ndata: {\"error\": 42, \"message\": []}\n\n"},
      {"NUL bytes", std::string("data: {\"a\0\":\0}\n\n\0\0\0", 19)},
      {"only comments", comments},
      {"CR line ends and no events", "event: x\rid: 1\rretry: 5\r\r"},
      {"1 MiB in one line that never ends", "data: " + std::string(kHuge, 'x')},
      {"an event of 1 MiB that never ends",
       [] {
         std::string s;
         while (s.size() < kHuge) s += "data: xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\n";
         return s;
       }()},
  };
}

void garbage(const RunContext& ctx) {
  auto ready = ready_provider(ctx);
  if (!ready) return;
  CallSpec call = ctx.settings.call;
  call.stream = true;
  for (const auto& g : garbage_streams()) {
    const bool small = g.bytes.size() <= 4096;
    const std::vector<std::pair<std::string, std::size_t>> ways = {
        {"whole", g.bytes.size()}, {small ? "byte by byte" : "in 4 KiB pieces", small ? 1 : 4096}};
    for (const auto& [how, size] : ways) {
      Step step("a stream of " + g.label + ", fed " + how);
      const auto streamed =
          ready->session->stream(ready->provider, call,
                                 g.bytes.empty() ? std::vector<std::string_view>{}
                                                 : pieces_of(g.bytes, std::max<std::size_t>(size, 1)));
      if (streamed.started && !streamed.log.failed()) {
        problem(
            "the stream ended without callback_error: a stream without the vendor's end marker is "
            "reported as failed (provider_failed)");
      }
    }
  }
}

void write_expected(const StreamFixture& f, const ResponseLog& log) {
  std::ofstream out(f.expected_file, std::ios::binary);
  for (const auto& e : log.events) {
    nlohmann::ordered_json line;
    switch (e.kind) {
      case Emitted::Kind::chunk:
      case Emitted::Kind::body: {
        const auto j = nlohmann::ordered_json::parse(e.text, nullptr, false);
        line[e.kind == Emitted::Kind::chunk ? "chunk" : "body"] =
            j.is_discarded() ? nlohmann::ordered_json(e.text) : j;
        break;
      }
      case Emitted::Kind::usage:
        line["usage"] = nlohmann::ordered_json::parse(usage_json(e.usage).dump());
        break;
      case Emitted::Kind::error: {
        const ErrorSeen& x = e.error;
        line["error"] = {{"http_status", x.http_status}, {"code", x.code}, {"message", x.message}};
        if (!x.param.empty()) line["error"]["param"] = x.param;
        line["error"]["retryable"] = x.retryable;
        line["error"]["retry_after_ms"] = x.retry_after_ms;
        break;
      }
    }
    out << line.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace) << "\n";
  }
}

}  // namespace

void run_stream_fixture(const RunContext& ctx, const std::filesystem::path& file, const CallSpec& base_call) {
  const StreamFixture f = load_stream_fixture(file, base_call);
  auto ready = ready_provider(ctx);
  if (!ready) return;
  Session& s = *ready->session;
  const auto run = [&](const std::vector<std::string_view>& pieces) {
    return events_json(s.stream(ready->provider, f.call, pieces).log);
  };
  std::vector<Json> reference;
  {
    Step step("fed whole");
    const auto streamed =
        s.stream(ready->provider, f.call,
                 f.bytes.empty() ? std::vector<std::string_view>{} : std::vector<std::string_view>{f.bytes});
    if (!streamed.started) return;
    reference = events_json(streamed.log);
    if (f.expected) {
      compare_events(*f.expected, reference);
    } else if (ctx.write_expected) {
      write_expected(f, streamed.log);
      note("wrote " + f.expected_file.string() + " from what the plugin emitted: review it");
    } else {
      problem("no " + f.expected_file.filename().string() +
              " (run with --write-expected to write one from the plugin's output, then review it)");
    }
  }
  std::size_t differing = 0;
  std::size_t runs = 0;
  const auto same = [&](const std::vector<std::string_view>& pieces, const std::string& how) {
    Step step("fed " + how);
    ++runs;
    const std::string d = first_difference(reference, run(pieces));
    if (d.empty()) return;
    if (++differing <= 5) problem("not what the whole transcript gave: " + d);
  };
  const std::string_view bytes = f.bytes;
  if (bytes.size() > 1) {
    same(pieces_of(bytes, 1), "byte by byte");
    const std::size_t step = bytes.size() <= ctx.max_split_bytes ? 1 : bytes.size() / ctx.max_split_bytes + 1;
    for (std::size_t at = 1; at < bytes.size(); at += step)
      same(split_at(bytes, at), "split at byte " + std::to_string(at));
    for (unsigned seed = 1; seed <= 20; ++seed)
      same(random_pieces(bytes, seed), "in random pieces (seed " + std::to_string(seed) + ")");
  }
  if (differing == 0) {
    note(std::to_string(runs) + " ways of feeding the " + std::to_string(bytes.size()) +
         " bytes gave the same events");
  }
  if (differing > 5) {
    problem(std::to_string(differing) + " of " + std::to_string(runs) +
            " ways of splitting the bytes gave other events");
  }
}

std::vector<Check> stream_checks(const RunContext& ctx) {
  std::vector<Check> out = {
      {"stream.garbage", "garbage streams end in one callback_error, never a crash", garbage},
  };
  for (const auto& file : fixture_files(ctx.fixtures, "streams", ".sse")) {
    const std::string name = file.stem().string();
    out.push_back({"stream." + name,
                   "streams/" + name + ".sse gives its expected events, split at every byte",
                   [file](const RunContext& c) { run_stream_fixture(c, file, c.settings.call); }});
  }
  return out;
}

}  // namespace mgw::testkit
