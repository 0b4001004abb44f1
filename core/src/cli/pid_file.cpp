#include "cli/pid_file.h"

#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <stdexcept>

namespace modelgw::cli {

PidFile::PidFile(std::string path) : path_(std::move(path)) {
  if (path_.empty()) return;
  // Written whole to a temporary name and renamed, so a reader never sees half.
  const std::string tmp = path_ + ".tmp";
  {
    std::ofstream out(tmp, std::ios::trunc);
    out << ::getpid() << "\n";
    out.close();
    if (!out) throw std::runtime_error("server.pid_file: cannot write " + tmp + ": " + std::strerror(errno));
  }
  if (std::rename(tmp.c_str(), path_.c_str()) != 0) {
    const std::string why = std::strerror(errno);
    std::remove(tmp.c_str());
    throw std::runtime_error("server.pid_file: cannot write " + path_ + ": " + why);
  }
}

PidFile::~PidFile() {
  if (path_.empty()) return;
  try {
    if (read_pid_file(path_) == ::getpid()) std::remove(path_.c_str());
  } catch (const std::exception&) {
    // Gone or replaced by another process: not ours to remove.
  }
}

pid_t read_pid_file(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error("cannot read the pid file " + path + ": " + std::strerror(errno));
  long long pid = 0;
  if (!(in >> pid) || pid <= 0 || pid > 0x7fffffff) {
    throw std::runtime_error("the pid file " + path + " does not hold a process id");
  }
  return static_cast<pid_t>(pid);
}

}  // namespace modelgw::cli
