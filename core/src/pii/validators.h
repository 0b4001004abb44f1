// Validators that confirm a pattern's candidate before it counts as a finding,
// so a 16-digit order number that fails Luhn is not a card. Each works on the
// candidate's bytes only (no allocation on the common path) and is total: any
// input, however malformed, returns false rather than throwing.
#pragma once

#include <cstddef>
#include <optional>
#include <string_view>

namespace modelgw::pii {

// Luhn (mod 10) over the ASCII digits of `digits`; false if it holds anything else or is empty.
// Any length: a pure checksum, so it says nothing about whether the digits are a card.
bool luhn_valid(std::string_view digits);

// A payment card number as written: 13-19 digits, optionally grouped by runs
// of spaces, single dashes or single dots (no leading, trailing or doubled dash
// or dot; group sizes are free; spaces and dashes may be mixed, dots may not be
// mixed with either); Luhn-valid and with a known issuer
// prefix (Visa 4; Mastercard 51-55, 2221-2720; Amex 34, 37; Discover 6011,
// 644-649, 65; JCB 3528-3589; Diners 300-305, 36, 38-39; UnionPay 62; Maestro
// 50, 56-58, 6304, 6759, 676770, 676774). Lengths per brand are not enforced
// beyond 13-19.
bool card_number_valid(std::string_view candidate);

// The length of the longest prefix of `candidate` that is a valid card number,
// cutting only at a separator or the end: a card followed by a year or a count
// ("4111 1111 1111 1111 2024") still yields the card. Groups are joined by
// nothing, a run of spaces, a dash or a dot; dots never mix with the others
// ("4111.1111.1111.1111" is a card, "41.11 11.11 11.11 11.11" is not). Also cuts
// before any other byte that is not an ASCII letter or digit ("...1111." or
// "...1111)"), never inside a run of letters and digits ("...1111x" is none).
std::optional<std::size_t> card_number_prefix(std::string_view candidate);

// A US SSN "AAA-GG-SSSS", "AAA GG SSSS" or "AAAGGSSSS": area not 000, 666 or
// 900-999; group not 00; serial not 0000. Any other shape is false.
bool ssn_valid(std::string_view candidate);

// An IBAN, printed (groups of four separated by single spaces, the last group
// 1-4 characters) or electronic (no spaces at all): country code in the SWIFT
// registry, that country's length, alphanumeric BBAN, check digits 02-98 and
// mod-97 == 1. Upper case only.
bool iban_valid(std::string_view candidate);

// The length of the prefix of `candidate` that is a valid IBAN, counting
// characters up to the country's length and allowing single spaces between
// them; nullopt when none. ("DE89 3704 0044 0532 0130 00 BANK" -> the IBAN).
// The prefix is in the printed layout if `candidate` has a space after the
// check digits, else electronic, and is exactly what iban_valid() accepts. It
// must end the candidate or be followed by a byte that is not an ASCII letter
// or digit: "DE89370400440532013000123" and "...0130 00BANK" give nullopt.
std::optional<std::size_t> iban_prefix(std::string_view candidate);

// Dotted-quad IPv4: four decimal octets 0-255, no leading zeros beyond "0".
bool ipv4_valid(std::string_view candidate);

// IPv6 in any RFC 4291/5952 text form, including "::" compression and an
// embedded IPv4 tail, with at least three non-empty groups: "d::" or "a::b" in
// C++ code is not an address, and neither are "::1" and "fe80::1", which name
// no one. An IPv4 tail counts as two groups, so "::ffff:192.0.2.1" is one.
// No zone index ("%eth0"); at most 45 bytes.
bool ipv6_valid(std::string_view candidate);

// A phone number as written: "+" (or 00) then 8-15 digits (E.164, separators
// " .-/()" allowed), or a national format (NANP with area and exchange not
// starting 0/1; a leading 0 trunk prefix for European formats; Spanish and
// Italian numbers without one). Rejects candidates whose digits are all the
// same.
//  - Digit groups are joined by one separator from " .-/", except around the
//    one parenthesized group: "(", ")", " (" and ") ". Nothing may lead but "+"
//    or "(", nothing may trail; "+" must be followed by a country code (not 0).
//  - NANP: "(415) 555-0134", "415-555-0134", "415.555.0134", "1-415-555-0134",
//    "1 (415) 555-0134": groups 3-3-4 or 1-3-3-4, area code not N11. Ten bare
//    digits are not accepted (order numbers look the same).
//  - 00 for "+" (European country codes 3x/4x only): "0049 69 686114",
//    "0049 (0)69 686114"; 00 and the code one group, at least two groups after
//    it, 8-13 digits after the 00.
//  - European: 0 then a non-zero digit, 10-11 digits, bare ("0612345678") or in
//    groups of one separator kind: a 2-5 digit first group (may be
//    parenthesized), then groups of 2-8 ("030 1234567", "06 12 34 56 78",
//    "089/12345678"). 12 digits only for German mobiles (015x, 016x, 017x)
//    with the 4-digit prefix a group of its own or bare ("0151 41398296");
//    9 digits only grouped with groups of 3+ after the first ("069/686114",
//    "(069) 686114", "02 1234567").
//  - Spanish: 9 digits starting 6-9, only as "612 34 56 78" or "612 345 678",
//    and landlines starting 8 or 9 also as "91 123 45 67".
//  - Italian mobiles: 10 digits starting 3 then 1-9, the 3-digit prefix a group
//    of its own: "347 123 4567", "347 1234567", "347/1234567", "347 123 45 67".
//  - An unbroken run that counts straight up or down ("0123456789",
//    "+1234567890") is a placeholder; grouped ("01.23.45.67.89") it is kept.
bool phone_valid(std::string_view candidate);

// A calendar date as written in a date-of-birth context: YYYY-MM-DD, DD/MM/YYYY,
// MM/DD/YYYY, DD.MM.YYYY, DD-MM-YYYY, "12 March 1984", "March 12, 1984", "12. März
// 1984" and the like (English, German, French, Spanish, Italian month names, full
// or 3-letter). Valid when some reading is a real date with year 1900-2030.
//  - Numeric: three numbers joined by one repeated separator from "-/."; either
//    YYYY-MM-DD or D-M-YYYY / M-D-YYYY (day and month 1-2 digits, both orders
//    tried). "1984-13-01" is false: year-first is only ever year-month-day.
//  - Text: day, month, year separated by single spaces (or all by dashes,
//    "12-Mar-1984"), day-first or month-first ("March 12, 1984"). The day may
//    carry "st"/"nd"/"rd"/"th", "er" (1 only) or a German "."; "de", "del" and
//    "of" may stand between day-first parts. Month names are case-insensitive
//    (ASCII and the accented Latin-1 letters), full or abbreviated to at least
//    their first three letters with an optional dot ("Sept.", "févr", "jui"
//    trying juin and juillet); "Maerz", "fevrier", "aout", "decembre" and
//    Austrian "Jänner" are accepted spellings.
//  - Candidates over 40 bytes are false without parsing.
bool birth_date_valid(std::string_view candidate);

// A JWT-shaped string: three non-empty base64url segments (no padding) whose
// first decodes to a JSON object text that mentions "alg": after optional
// whitespace it starts with '{' and contains "\"alg\"" within its first 2 KiB.
bool jwt_shaped(std::string_view candidate);

// A provider/cloud API key body: at least 20 characters and mixing letters and
// digits (so "sk-this-is-not-a-real-key-at-all" is not one). Characters are
// ASCII letters, digits and "-_+/=." (base64 and token alphabets); at most
// 4096 of them.
bool key_body_plausible(std::string_view body);

// An email address: local part 1-64 chars not starting/ending with '.' and no
// "..", domain 4-253 chars of labels (1-63, no leading/trailing '-'), TLD letters only, 2-24.
// The local part is RFC 5322 dot-atoms (letters, digits, "!#$%&'*+/=?^_`{|}~-"),
// no quoted strings; the domain is ASCII letters, digits and '-' (IDNs as
// punycode, though an "xn--" TLD is not letters only), at least two labels.
bool email_valid(std::string_view candidate);

}  // namespace modelgw::pii
