// What a check finds, and where it was when it found it. A check reports a
// broken promise with problem() (the check fails) or something worth knowing
// with note(); either is prefixed with the innermost Step, which names the
// hook and the input ("on_stream_data: stream 'text', split at byte 17").
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace mgw::testkit {

// Where findings go: the isolation layer installs one per check process.
class FindingSink {
 public:
  virtual ~FindingSink() = default;
  virtual void problem(std::string_view text) = 0;
  virtual void note(std::string_view text) = 0;
  // The step now running, for a report of a crash or a hang.
  virtual void progress(std::string_view step) = 0;
};

// Installs the sink of this process (not owned; nullptr to remove).
void set_finding_sink(FindingSink* sink);

// Reports a broken promise / a remark, prefixed with the current step.
void problem(std::string_view text);
void note(std::string_view text);

// Problems reported in this process so far.
std::size_t problem_count();

// Names what the code in its scope is doing. Steps nest; the innermost one
// prefixes findings and is what a crash report shows.
class Step {
 public:
  explicit Step(std::string label);
  ~Step();
  Step(const Step&) = delete;
  Step& operator=(const Step&) = delete;
};

// The labels of the open steps, innermost last, joined with ": ".
std::string current_step();

}  // namespace mgw::testkit
