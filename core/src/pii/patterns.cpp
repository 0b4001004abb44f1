#include "pii/patterns.h"

#include <array>

namespace modelgw::pii {
namespace {

// A date as people write it next to "born" or "DOB": ISO, numeric with / . -,
// "12 March 1984", "12. März 1984", "12 de marzo de 1984", "March 12, 1984".
// Month words are any 3-12 letters here; birth_date_valid() knows the names.
#define MGW_PII_DATE                                                                     \
  R"((\d{4}-\d{1,2}-\d{1,2})"                                                            \
  R"(|\d{1,2}[./\-]\d{1,2}[./\-]\d{4})"                                                  \
  R"(|\d{1,2}(?:st|nd|rd|th|er)?\.?(?: de)? [A-Za-z\x80-\xff]{3,12}\.?(?: de)?,? \d{4})" \
  R"(|[A-Za-z]{3,9}\.? \d{1,2}(?:st|nd|rd|th)?,? \d{4}))"

constexpr std::array kPatterns = {
    // --- secrets: the most specific shapes first ---------------------------------
    // A private key block's header; the check extends the finding over the body
    // and END line (a regex that did so would rescan to the end of the text
    // for every header without an END: quadratic on a text of headers).
    Pattern{Category::secret, Check::pem, R"(-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----)"},
    Pattern{Category::secret, Check::jwt,
            R"(\beyJ[A-Za-z0-9_\-]{5,}\.ey[A-Za-z0-9_\-]{5,}\.[A-Za-z0-9_\-]{8,})"},
    Pattern{Category::secret, Check::none,
            R"(\b(?:AKIA|ASIA|ABIA|ACCA|AGPA|AIDA|AROA|ANPA|ANVA|AIPA)[A-Z0-9]{16}\b)"},
    Pattern{Category::secret, Check::key,
            R"((?i)aws_?secret_?access_?key["'\s:=]{1,6}([A-Za-z0-9/+=]{40})\b)"},
    // OpenAI (sk-, sk-proj-, sk-svcacct-), Anthropic (sk-ant-api03-), this gateway (sk-mgw-).
    Pattern{Category::secret, Check::key, R"(\bsk-[A-Za-z0-9_\-]{20,})"},
    Pattern{Category::secret, Check::key, R"(\b(?:ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9]{36}\b)"},
    Pattern{Category::secret, Check::key, R"(\bgithub_pat_[A-Za-z0-9_]{22,255})"},
    Pattern{Category::secret, Check::none, R"(\bAIza[0-9A-Za-z_\-]{35})"},
    Pattern{Category::secret, Check::key, R"(\bxox[abposr]-[A-Za-z0-9\-]{10,})"},
    Pattern{Category::secret, Check::key, R"(\b(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{16,})"},
    Pattern{Category::secret, Check::key, R"(\bglpat-[A-Za-z0-9_\-]{20,})"},

    // --- identifiers with checksums ------------------------------------------------
    // Groups joined by nothing, a run of spaces, a dash or a dot (card_number_prefix
    // says which mixes count): "4111  1111  1111  1111", "4111.1111.1111.1111".
    Pattern{Category::payment_card, Check::card, R"(\b\d(?:(?: +|[.\-])?\d){12,18}\b)", Reach::numeric_run,
            13},
    Pattern{Category::iban, Check::iban, R"(\b[A-Z]{2}\d{2}(?: ?[A-Z0-9]){11,30}\b)"},
    Pattern{Category::ssn, Check::ssn, R"(\b\d{3}[\- ]\d{2}[\- ]\d{4}\b)", Reach::numeric_run, 9},
    Pattern{Category::ssn, Check::ssn,
            R"((?i)\b(?:ssn|social security(?: number| no\.?| #)?)[\s:#.\-]{0,5}(\d{9})\b)"},

    // --- contact details -------------------------------------------------------------
    Pattern{Category::email, Check::email,
            R"([A-Za-z0-9._%+\-]+@[A-Za-z0-9\-]+(?:\.[A-Za-z0-9\-]+)*\.[A-Za-z]{2,24}\b)", Reach::at_sign},
    // E.164 as written: "+", then digits with the usual separators.
    Pattern{Category::phone, Check::phone, R"(\+[1-9][0-9 .\-/()]{6,22}[0-9])"},
    // The same with 00 for "+" (European country codes): 0049 (0)69 686114.
    Pattern{Category::phone, Check::phone, R"(\b00[34][0-9 .\-/()]{6,24}[0-9])", Reach::numeric_run, 10},
    // NANP: (415) 555-0134, 415-555-0134, 1-415-555-0134.
    Pattern{Category::phone, Check::phone, R"((?:\b1[ .\-])?(?:\(\d{3}\) ?|\b\d{3}[ .\-])\d{3}[ .\-]\d{4}\b)",
            Reach::numeric_run, 10},
    // European with a trunk 0: 030 1234567, 020 7946 0958, 06 12 34 56 78, 089/12345678,
    // 0151 41398296, 069/686114.
    Pattern{Category::phone, Check::phone, R"(\b0\d{1,4}(?:[ ./\-]?\d{2,8}){1,4}\b)", Reach::numeric_run, 4},
    // The same with the trunk and area code in parentheses: (069) 686114, (020) 7946 0958.
    Pattern{Category::phone, Check::phone, R"(\(0\d{1,4}\) ?\d{2,8}(?:[ \-]\d{2,8}){0,3}\b)",
            Reach::numeric_run, 6},
    // Spanish mobiles and landlines without a trunk prefix: 612 34 56 78, 912 345 678, 91 123 45 67.
    // Not with dots: "999.72.55.21" and "91.131.24.36" are dotted quads.
    Pattern{Category::phone, Check::phone,
            R"(\b[6-9]\d{2}(?:[ \-]\d{2}){3}\b|\b[6-9]\d{2}[ \-]\d{3}[ \-]\d{3}\b)"
            R"(|\b[89]\d[ \-]\d{3}(?:[ \-]\d{2}){2}\b)",
            Reach::numeric_run, 9},
    // Italian mobiles without a trunk prefix: 347 123 4567, 347 1234567, 347/1234567, 347 123 45 67.
    Pattern{Category::phone, Check::phone, R"(\b3\d{2}[ .\-/]\d{3}[ .\-]?\d{2}[ .\-]?\d{2}\b)",
            Reach::numeric_run, 10},

    // --- network addresses -------------------------------------------------------------
    Pattern{Category::ip_address, Check::ipv4, R"(\b(?:\d{1,3}\.){3}\d{1,3}\b)", Reach::numeric_run, 4},
    Pattern{Category::ip_address, Check::ipv6,
            R"((?i)(?:[0-9a-f]{0,4}:){2,7}(?:(?:\d{1,3}\.){3}\d{1,3}|[0-9a-f]{1,4})?)"},

    // --- dates, only in a birth context --------------------------------------------------
    Pattern{
        Category::date_of_birth, Check::birth_date,
        R"((?i)\b(?:born(?: on)?|birth ?date|date of birth|birthday|d\.?o\.?b\.?|geboren(?: am| op)?)"
        R"(|geburtsdatum|geb\.(?:-datum)?|n(?:é|e)e? le|date de naissance|fecha de nacimiento|nacid[oa] el|nac(?:í|i) el)"
        R"(|data di nascita|nat[oa] il|geboortedatum)[\s:,\-]{0,6}(?:on |am |le |el |il |op |the )?)" MGW_PII_DATE},
};

#undef MGW_PII_DATE

}  // namespace

std::span<const Pattern> patterns() {
  return kPatterns;
}

}  // namespace modelgw::pii
