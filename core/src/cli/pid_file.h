// server.pid_file: serve writes its process id there (and removes it at
// exit) so `modelgw reload` can find the process to signal.
#pragma once

#include <sys/types.h>
#include <string>

namespace modelgw::cli {

class PidFile {
 public:
  // Writes this process's id to `path` (nothing when empty). Throws
  // std::runtime_error with one line when it cannot be written.
  explicit PidFile(std::string path);
  ~PidFile();  // removes the file if it still names this process
  PidFile(const PidFile&) = delete;
  PidFile& operator=(const PidFile&) = delete;

 private:
  std::string path_;
};

// The process id in `path`; throws std::runtime_error with one line when the
// file is missing or holds no positive number.
pid_t read_pid_file(const std::string& path);

}  // namespace modelgw::cli
