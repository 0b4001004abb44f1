#define PCRE2_CODE_UNIT_WIDTH 8
#include "pretokenizer.h"

#include <pcre2.h>

#include <new>
#include <stdexcept>
#include <string>

namespace modelgw::tokenizer {
namespace {

// Per-thread match state shared by every pattern: both encodings' patterns
// have no capture groups, and PCRE2 fills ovector[0..1] (the whole match)
// even when the vector is shorter than the capture count.
struct ThreadMatchState {
  pcre2_match_data* data = pcre2_match_data_create(1, nullptr);
  pcre2_match_context* context = pcre2_match_context_create(nullptr);
  // The patterns only repeat single-character classes, which JIT runs
  // without deep backtracking; 1 MiB is ample and bounds a pathological input.
  pcre2_jit_stack* stack = pcre2_jit_stack_create(32 * 1024, 1024 * 1024, nullptr);

  ThreadMatchState() {
    if (data == nullptr || context == nullptr) throw std::bad_alloc();
    if (stack != nullptr) pcre2_jit_stack_assign(context, nullptr, stack);
  }
  ~ThreadMatchState() {
    pcre2_jit_stack_free(stack);
    pcre2_match_context_free(context);
    pcre2_match_data_free(data);
  }
  ThreadMatchState(const ThreadMatchState&) = delete;
  ThreadMatchState& operator=(const ThreadMatchState&) = delete;
};

ThreadMatchState& thread_state() {
  thread_local ThreadMatchState state;
  return state;
}

}  // namespace

struct PreTokenizer::Compiled {
  pcre2_code* code = nullptr;
  bool jit = false;
  ~Compiled() { pcre2_code_free(code); }
};

PreTokenizer::PreTokenizer(std::string_view pattern) : compiled_(std::make_unique<Compiled>()) {
  int error = 0;
  PCRE2_SIZE error_offset = 0;
  // PCRE2_UCP: \p classes and case folding by Unicode, as in Rust's regex.
  // PCRE2_MATCH_INVALID_UTF: invalid UTF-8 in the subject is allowed and
  // simply never matches, instead of making every match call fail.
  compiled_->code =
      pcre2_compile(reinterpret_cast<PCRE2_SPTR>(pattern.data()), pattern.size(),
                    PCRE2_UTF | PCRE2_UCP | PCRE2_MATCH_INVALID_UTF, &error, &error_offset, nullptr);
  if (compiled_->code == nullptr) {
    PCRE2_UCHAR message[256];
    pcre2_get_error_message(error, message, sizeof message);
    throw std::runtime_error("modelgw tokenizer: pattern does not compile at offset " +
                             std::to_string(error_offset) + ": " + reinterpret_cast<const char*>(message));
  }
  // JIT is an optimisation only: without it (no JIT on this CPU, or
  // executable memory denied) the interpreter gives the same pieces.
  compiled_->jit = pcre2_jit_compile(compiled_->code, PCRE2_JIT_COMPLETE) == 0;
}

PreTokenizer::~PreTokenizer() = default;

bool PreTokenizer::jit() const noexcept {
  return compiled_->jit;
}

void PreTokenizer::split(std::string_view text, PieceSink& sink) const {
  ThreadMatchState& state = thread_state();
  const auto* subject = reinterpret_cast<PCRE2_SPTR>(text.data());
  const std::size_t length = text.size();
  std::size_t covered = 0;  // text[0, covered) has been handed to the sink
  while (covered < length) {
    const int rc =
        compiled_->jit
            ? pcre2_jit_match(compiled_->code, subject, length, covered, 0, state.data, state.context)
            : pcre2_match(compiled_->code, subject, length, covered, 0, state.data, state.context);
    // No match: the rest is unmatchable bytes. An error (JIT stack or match
    // limit) cannot happen with these patterns, but if it did, counting the
    // rest as raw bytes still gives a count rather than a crash.
    if (rc < 0) break;
    const PCRE2_SIZE* ovector = pcre2_get_ovector_pointer(state.data);
    const std::size_t begin = ovector[0];
    const std::size_t end = ovector[1];
    if (begin < covered || end > length || end < begin) break;  // cannot happen; never trust blindly
    if (begin > covered) sink.piece(text.substr(covered, begin - covered));
    if (end == begin) {
      // An empty match (impossible with tiktoken's patterns, every
      // alternative consumes) would loop forever; take one byte as a piece.
      sink.piece(text.substr(begin, 1));
      covered = begin + 1;
      continue;
    }
    sink.piece(text.substr(begin, end - begin));
    covered = end;
  }
  if (covered < length) sink.piece(text.substr(covered));
}

}  // namespace modelgw::tokenizer
