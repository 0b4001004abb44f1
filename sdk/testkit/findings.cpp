#include "findings.h"

#include <mutex>
#include <thread>

namespace mgw::testkit {
namespace {

// The runner drives a plugin from one thread, but a plugin may call a sink
// from a thread of its own (itself a finding, see strict_sinks.cpp): the
// lock keeps that report from racing the runner's.
std::mutex g_mutex;
FindingSink* g_sink = nullptr;
std::size_t g_problems = 0;
// Each thread nests its own steps; the runner's thread reports progress.
thread_local std::vector<std::string> g_steps;
std::thread::id g_runner;

std::string joined_steps() {
  std::string out;
  for (const auto& s : g_steps) {
    if (!out.empty()) out += ": ";
    out += s;
  }
  return out;
}

std::string prefixed(std::string_view text) {
  std::string where = joined_steps();
  if (where.empty()) return std::string(text);
  return where + ": " + std::string(text);
}

}  // namespace

void set_finding_sink(FindingSink* sink) {
  std::lock_guard lock(g_mutex);
  g_sink = sink;
  g_runner = std::this_thread::get_id();
}

void problem(std::string_view text) {
  std::lock_guard lock(g_mutex);
  ++g_problems;
  if (g_sink != nullptr) g_sink->problem(prefixed(text));
}

void note(std::string_view text) {
  std::lock_guard lock(g_mutex);
  if (g_sink != nullptr) g_sink->note(prefixed(text));
}

std::size_t problem_count() {
  std::lock_guard lock(g_mutex);
  return g_problems;
}

Step::Step(std::string label) {
  std::lock_guard lock(g_mutex);
  g_steps.push_back(std::move(label));
  if (g_sink != nullptr && std::this_thread::get_id() == g_runner) g_sink->progress(joined_steps());
}

Step::~Step() {
  std::lock_guard lock(g_mutex);
  g_steps.pop_back();
}

std::string current_step() {
  std::lock_guard lock(g_mutex);
  return joined_steps();
}

}  // namespace mgw::testkit
