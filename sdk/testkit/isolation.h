// Runs each check in a child process of its own, so that a plugin that
// crashes, hangs or aborts under a sanitizer fails that one check (with the
// step it was in) instead of ending the run, and so that every check starts
// from a freshly loaded plugin: the entry symbol is called once per process,
// as the gateway does. Under AddressSanitizer the child's exit runs the leak
// checker, which makes a leak fail the check that caused it.
#pragma once

#include <chrono>
#include <cstddef>
#include <functional>
#include <string>
#include <vector>

namespace mgw::testkit {

struct CheckResult {
  enum class Verdict { pass, fail, crashed, timed_out };
  Verdict verdict = Verdict::pass;
  std::size_t problem_count = 0;      // every problem reported...
  std::vector<std::string> problems;  // ...of which the first ones, with their text
  std::vector<std::string> notes;
  std::string death;  // how the process ended, when that is itself the failure
};

// Problems kept with their text per check; the rest are counted.
inline constexpr std::size_t kKeptProblems = 20;

// Runs `body` in a child process; problems it reports (findings.h) come back
// here. The child gets at most `timeout`.
CheckResult run_isolated(const std::function<void()>& body, std::chrono::seconds timeout);

}  // namespace mgw::testkit
