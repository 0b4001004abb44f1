// Translation of a tiktoken pre-tokenizer pattern into PCRE2 syntax.
#pragma once

#include <string>
#include <string_view>

namespace modelgw::tokenizer {

// tiktoken runs its patterns with Rust's (fancy-)regex, whose \s is Unicode
// White_Space. PCRE2's \s under PCRE2_UCP is Perl's space, which also holds
// U+180E (MONGOLIAN VOWEL SEPARATOR, not White_Space since Unicode 6.3), so
// "x\u180e" would split differently from tiktoken. Everything else the
// patterns use (\p{..} classes, (?i:...) incl. s/S/U+017F folding, lookahead,
// possessive and counted quantifiers) means the same in both, so only \s and
// \S are rewritten, as explicit White_Space classes.
// Throws std::invalid_argument on a construct this rewrite cannot express
// (\S inside a character class, \Q...\E quoting).
std::string to_pcre2_pattern(std::string_view rust_pattern);

}  // namespace modelgw::tokenizer
