// Build-time converter: reads one encoder file of the npm package `tiktoken`
// (encoders/<name>.json: {"pat_str", "special_tokens", "bpe_ranks"}) and
// writes the compact binary rank table the library embeds (see
// src/blob_format.h). It refuses anything it cannot fully verify, so a bad or
// changed package fails the build rather than shipping a wrong tokenizer.
//
// Usage: mgw_bpe_convert INPUT.json EXPECTED_TOKEN_COUNT OUTPUT.bin
//
// The package's "bpe_ranks" is a compressed text: lines of
//   "! <first rank> <base64 token> <base64 token> ..."
// where consecutive tokens on a line have consecutive ranks.

#include <nlohmann/json.hpp>

#include <algorithm>
#include <array>
#include <charconv>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <limits>
#include <stdexcept>
#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

#include "../src/blob_format.h"
#include "base64.h"

namespace {

namespace blob = modelgw::tokenizer::blob;
using modelgw::tokenizer::tools::decode_base64;

struct Token {
  std::uint32_t rank;
  std::string bytes;
};

[[noreturn]] void fail(const std::string& why) {
  throw std::runtime_error(why);
}

std::vector<std::string_view> split(std::string_view s, char sep) {
  std::vector<std::string_view> out;
  std::size_t start = 0;
  while (start <= s.size()) {
    std::size_t end = s.find(sep, start);
    if (end == std::string_view::npos) end = s.size();
    out.push_back(s.substr(start, end - start));
    start = end + 1;
  }
  return out;
}

std::uint32_t parse_u32(std::string_view s, const char* what) {
  std::uint32_t v = 0;
  auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc{} || ptr != s.data() + s.size())
    fail(std::string("bad ") + what + ": '" + std::string(s) + "'");
  return v;
}

std::vector<Token> parse_ranks(std::string_view compressed) {
  std::vector<Token> tokens;
  for (std::string_view line : split(compressed, '\n')) {
    if (line.empty()) continue;
    const auto fields = split(line, ' ');
    if (fields.size() < 3 || fields[0] != "!") fail("bpe_ranks line is not '! <offset> <tokens...>'");
    const std::uint32_t first = parse_u32(fields[1], "rank offset");
    for (std::size_t i = 2; i < fields.size(); ++i) {
      auto bytes = decode_base64(fields[i]);
      if (!bytes || bytes->empty()) fail("bad base64 token '" + std::string(fields[i]) + "'");
      const std::uint64_t rank = std::uint64_t{first} + (i - 2);
      // Ranks are kept below 2^31 so the runtime can use UINT32_MAX as "no rank".
      if (rank >= std::numeric_limits<std::int32_t>::max()) fail("rank out of range");
      tokens.push_back({static_cast<std::uint32_t>(rank), std::move(*bytes)});
    }
  }
  return tokens;
}

void verify(std::vector<Token>& tokens, std::size_t expected_count) {
  if (tokens.size() != expected_count)
    fail("expected " + std::to_string(expected_count) + " mergeable ranks, found " +
         std::to_string(tokens.size()));
  std::sort(tokens.begin(), tokens.end(), [](const Token& a, const Token& b) { return a.rank < b.rank; });
  for (std::size_t i = 1; i < tokens.size(); ++i)
    if (tokens[i].rank == tokens[i - 1].rank) fail("duplicate rank " + std::to_string(tokens[i].rank));
  std::unordered_set<std::string_view> seen;
  std::array<bool, 256> single_byte{};
  std::size_t total = 0;
  for (const Token& t : tokens) {
    if (t.bytes.size() > blob::kMaxTokenBytes)
      fail("token longer than the format allows at rank " + std::to_string(t.rank));
    total += t.bytes.size();
    if (!seen.insert(t.bytes).second) fail("duplicate token bytes at rank " + std::to_string(t.rank));
    if (t.bytes.size() == 1) single_byte[static_cast<unsigned char>(t.bytes[0])] = true;
  }
  if (total >= blob::kMaxTotalBytes) fail("token bytes exceed the format's limit");
  // Byte-pair merging starts from single bytes, so every byte must be a token
  // or some input could not be encoded at all.
  for (std::size_t b = 0; b < single_byte.size(); ++b)
    if (!single_byte[b]) fail("byte " + std::to_string(b) + " has no token");
}

void put_u32(std::string& out, std::uint32_t v) {
  for (int i = 0; i < 4; ++i) out.push_back(static_cast<char>((v >> (8 * i)) & 0xFF));
}

std::string serialize(const std::vector<Token>& tokens, const std::string& pattern) {
  std::size_t bytes_size = 0;
  for (const Token& t : tokens) bytes_size += t.bytes.size();
  if (pattern.size() >= (1u << 20)) fail("pattern too large");

  std::string out(blob::kMagic.begin(), blob::kMagic.end());
  put_u32(out, static_cast<std::uint32_t>(tokens.size()));
  put_u32(out, static_cast<std::uint32_t>(pattern.size()));
  put_u32(out, static_cast<std::uint32_t>(bytes_size));
  put_u32(out, 0);
  out += pattern;
  out.resize(blob::kHeaderSize + blob::padded4(pattern.size()), '\0');
  for (const Token& t : tokens) put_u32(out, t.rank);
  std::uint32_t offset = 0;
  for (const Token& t : tokens) {
    put_u32(out, offset);
    offset += static_cast<std::uint32_t>(t.bytes.size());
  }
  put_u32(out, offset);
  for (const Token& t : tokens) out += t.bytes;
  return out;
}

void write_atomically(const std::filesystem::path& path, const std::string& data) {
  // Written aside and renamed, so an interrupted build never leaves a
  // truncated table that make/ninja would then consider up to date.
  const std::filesystem::path tmp = path.string() + ".tmp";
  {
    std::ofstream f(tmp, std::ios::binary | std::ios::trunc);
    f.write(data.data(), static_cast<std::streamsize>(data.size()));
    if (!f) fail("cannot write " + tmp.string());
  }
  std::filesystem::rename(tmp, path);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 4) {
    std::cerr << "usage: mgw_bpe_convert INPUT.json EXPECTED_TOKEN_COUNT OUTPUT.bin\n";
    return 2;
  }
  const std::string input = argv[1];
  try {
    std::ifstream in(input, std::ios::binary);
    if (!in) fail("cannot open (run npm ci at the repository root)");
    const auto doc = nlohmann::json::parse(std::string(std::istreambuf_iterator<char>(in), {}));
    if (!doc.contains("bpe_ranks") || !doc["bpe_ranks"].is_string()) fail("no string field 'bpe_ranks'");
    if (!doc.contains("pat_str") || !doc["pat_str"].is_string()) fail("no string field 'pat_str'");
    const auto pattern = doc["pat_str"].get<std::string>();
    if (pattern.empty()) fail("empty 'pat_str'");

    const std::size_t expected = parse_u32(argv[2], "expected token count");
    auto tokens = parse_ranks(doc["bpe_ranks"].get_ref<const std::string&>());
    verify(tokens, expected);
    write_atomically(argv[3], serialize(tokens, pattern));
    std::cout << "mgw_bpe_convert: " << input << ": " << tokens.size() << " ranks verified\n";
    return 0;
  } catch (const std::exception& e) {
    std::cerr << "mgw_bpe_convert: " << input << ": " << e.what() << "\n";
    return 1;
  }
}
