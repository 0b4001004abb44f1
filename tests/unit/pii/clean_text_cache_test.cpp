// The cross-request memory of clean texts (pii/clean_text_cache.h): a digest
// is the secret's, the tenant's and the text's, a slot keeps the last digest
// that hashed to it, and a lookup matches only the whole digest.
#include "pii/clean_text_cache.h"

#include <gtest/gtest.h>

#include <string>
#include <thread>
#include <vector>

namespace modelgw::pii {
namespace {

TEST(PiiCleanTextCache, ADigestIsTheTenantsAndTheTexts) {
  const CleanTextCache cache;
  const std::string text(200, 'a');
  EXPECT_EQ(cache.digest(1, text), cache.digest(1, text));
  EXPECT_NE(cache.digest(1, text), cache.digest(2, text));
  EXPECT_NE(cache.digest(1, text), cache.digest(1, text + "b"));
  // Keyed by each cache's random secret: no one can work out a text's slot.
  const CleanTextCache other;
  EXPECT_NE(cache.digest(1, text), other.digest(1, text));
  EXPECT_NE(cache.hint(1, text), other.hint(1, text));
}

// A hint only says whether to hash: the tenant's, the length's and sampled
// bytes'. Texts that differ only between the samples share one, and that
// costs a hash, never a scan.
TEST(PiiCleanTextCache, AHintIsTheTenantsTheLengthsAndSampledBytes) {
  const CleanTextCache cache;
  const std::string text(300, 'h');
  EXPECT_EQ(cache.hint(1, text), cache.hint(1, text));
  EXPECT_NE(cache.hint(1, text), cache.hint(2, text));
  EXPECT_NE(cache.hint(1, text), cache.hint(1, text + "h"));
  std::string end = text;
  end.back() = 'e';
  EXPECT_NE(cache.hint(1, text), cache.hint(1, end));
  std::string between = text;
  between[40] = 'b';
  EXPECT_EQ(cache.hint(1, text), cache.hint(1, between));
  EXPECT_NE(cache.digest(1, text), cache.digest(1, between));
}

TEST(PiiCleanTextCache, AHintIsSeenOnceNoted) {
  CleanTextCache cache;
  const auto hint = cache.hint(1, std::string(200, 'n'));
  EXPECT_FALSE(cache.seen(hint));
  cache.note(hint);
  EXPECT_TRUE(cache.seen(hint));
  EXPECT_FALSE(cache.seen(cache.hint(2, std::string(200, 'n'))));
}

TEST(PiiCleanTextCache, OnlyWhatWasAddedIsFound) {
  CleanTextCache cache;
  const auto kept = cache.digest(1, std::string(200, 'k'));
  const auto other = cache.digest(1, std::string(200, 'o'));
  EXPECT_FALSE(cache.contains(kept));
  cache.add(kept);
  EXPECT_TRUE(cache.contains(kept));
  EXPECT_FALSE(cache.contains(other));
  EXPECT_EQ(cache.hits(), 1u);
}

TEST(PiiCleanTextCache, ASlotKeepsTheLastDigestThatHashedToIt) {
  CleanTextCache cache;
  const auto first = cache.digest(1, std::string(200, 'f'));
  auto second = cache.digest(1, std::string(200, 's'));
  second[0] = first[0];  // the same slot, another digest
  cache.add(first);
  cache.add(second);
  EXPECT_TRUE(cache.contains(second));
  EXPECT_FALSE(cache.contains(first)) << "a slot holds one digest; the older is forgotten";
}

// Bounded in count and time: writers and readers on the same slots at once
// never find a digest that was not added whole.
TEST(PiiCleanTextCache, ConcurrentWritersNeverMakeAFalseMatch) {
  CleanTextCache cache;
  std::vector<CleanTextCache::Digest> added, never;
  std::vector<bool> taken(CleanTextCache::kSlots);
  for (int i = 0; added.size() < 256; ++i) {  // each in a slot of its own, so all stay
    const auto d = cache.digest(1, "added " + std::to_string(i) + std::string(150, '.'));
    if (taken[d[0] % CleanTextCache::kSlots]) continue;
    taken[d[0] % CleanTextCache::kSlots] = true;
    added.push_back(d);
  }
  for (int i = 0; i < 256; ++i) {
    never.push_back(cache.digest(1, "never " + std::to_string(i) + std::string(150, '.')));
  }
  std::vector<std::thread> writers;
  for (int t = 0; t < 4; ++t) {
    writers.emplace_back([&, t] {
      for (int round = 0; round < 200; ++round) {
        for (std::size_t i = static_cast<std::size_t>(t); i < added.size(); i += 4) cache.add(added[i]);
      }
    });
  }
  for (int round = 0; round < 200; ++round) {
    for (const auto& d : never) ASSERT_FALSE(cache.contains(d));
  }
  for (auto& w : writers) w.join();
  for (const auto& d : added) EXPECT_TRUE(cache.contains(d));
}

}  // namespace
}  // namespace modelgw::pii
