#include "harness/process.h"

#include <signal.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace it {

using namespace std::chrono_literals;

PipeDrain::PipeDrain(Poco::Pipe pipe, std::string copy_path)
    : pipe_(std::move(pipe)), copy_path_(std::move(copy_path)), thread_([this] { run(); }) {}

PipeDrain::~PipeDrain() {
  // The owner reaps the child first, so the write end is closed and the
  // blocking read returns 0; closing our read end covers any other case.
  if (thread_.joinable()) thread_.join();
}

void PipeDrain::run() {
  std::ofstream copy;
  if (!copy_path_.empty()) copy.open(copy_path_, std::ios::binary | std::ios::app);
  char buffer[8192];
  while (true) {
    int n = 0;
    try {
      n = pipe_.readBytes(buffer, sizeof buffer);
    } catch (...) {
      n = 0;
    }
    if (n <= 0) break;
    if (copy.is_open()) {
      copy.write(buffer, n);
      copy.flush();
    }
    std::lock_guard lock(mutex_);
    text_.append(buffer, static_cast<std::size_t>(n));
    changed_.notify_all();
  }
  pipe_.close(Poco::Pipe::CLOSE_READ);
  std::lock_guard lock(mutex_);
  closed_ = true;
  changed_.notify_all();
}

std::string PipeDrain::text() const {
  std::lock_guard lock(mutex_);
  return text_;
}

bool PipeDrain::wait_for(const std::string& needle, std::chrono::milliseconds timeout) const {
  std::unique_lock lock(mutex_);
  changed_.wait_for(lock, timeout, [&] { return closed_ || text_.find(needle) != std::string::npos; });
  return text_.find(needle) != std::string::npos;
}

bool PipeDrain::wait_closed(std::chrono::milliseconds timeout) const {
  std::unique_lock lock(mutex_);
  return changed_.wait_for(lock, timeout, [&] { return closed_; });
}

ChildProcess::ChildProcess(const std::string& program, const std::vector<std::string>& args, const Env& env,
                           const std::string& stderr_copy) {
  Poco::Pipe out;
  Poco::Pipe err;
  Poco::Process::Env penv(env.begin(), env.end());
  handle_ = std::make_unique<Poco::ProcessHandle>(
      Poco::Process::launch(program, args, std::string(), nullptr, &out, &err, penv));
  pid_ = handle_->id();
  out_ = std::make_unique<PipeDrain>(out, std::string());
  err_ = std::make_unique<PipeDrain>(err, stderr_copy);
}

ChildProcess::~ChildProcess() {
  stop(5s);
  out_.reset();  // joins the drains: the child is gone, so both pipes end
  err_.reset();
}

std::optional<int> ChildProcess::try_wait() {
  if (exit_code_) return exit_code_;
  if (!handle_) return std::nullopt;
  const int code = handle_->tryWait();
  if (code != -1) exit_code_ = code;
  return exit_code_;
}

std::optional<int> ChildProcess::wait_exit(std::chrono::milliseconds timeout) {
  const auto deadline = Clock::now() + timeout;
  while (true) {
    if (auto code = try_wait()) return code;
    if (Clock::now() >= deadline) return std::nullopt;
    std::this_thread::sleep_for(10ms);
  }
}

void ChildProcess::send_signal(int sig) const {
  if (!exit_code_ && pid_ > 0) ::kill(pid_, sig);
}

int ChildProcess::stop(std::chrono::milliseconds grace) {
  if (try_wait()) return *exit_code_;
  send_signal(SIGTERM);
  if (auto code = wait_exit(grace)) return *code;
  send_signal(SIGKILL);
  handle_->wait();  // reaps; SIGKILL cannot be ignored
  exit_code_ = -1;
  return -1;
}

RunResult run_to_exit(const std::string& program, const std::vector<std::string>& args, const Env& env,
                      std::chrono::milliseconds timeout) {
  ChildProcess child(program, args, env);
  RunResult result;
  if (auto code = child.wait_exit(timeout)) {
    result.exit_code = *code;
  } else {
    child.stop(1s);
    result.exit_code = -1;
  }
  // After the exit the pipes close; wait (boundedly) for the last bytes.
  child.stdout_drain().wait_closed(5s);
  child.stderr_drain().wait_closed(5s);
  result.out = child.out();
  result.err = child.err();
  return result;
}

std::string find_on_path(const std::string& program) {
  const char* path = std::getenv("PATH");
  std::istringstream dirs(path != nullptr ? path : "");
  for (std::string dir; std::getline(dirs, dir, ':');) {
    if (dir.empty()) continue;
    const std::filesystem::path candidate = std::filesystem::path(dir) / program;
    std::error_code ec;
    if (std::filesystem::is_regular_file(candidate, ec) && ::access(candidate.c_str(), X_OK) == 0) {
      return candidate.string();
    }
  }
  return {};
}

}  // namespace it
