#include "runtime.h"

#include <sys/socket.h>

namespace fake_proxy {

void SocketRegistry::add(int fd) {
  std::lock_guard lock(mutex_);
  // A connection that registers after the stop began must not be missed.
  if (closed_) {
    ::shutdown(fd, SHUT_RDWR);
    return;
  }
  fds_.insert(fd);
}

void SocketRegistry::remove(int fd) {
  std::lock_guard lock(mutex_);
  fds_.erase(fd);
}

void SocketRegistry::shutdownAll() {
  std::lock_guard lock(mutex_);
  closed_ = true;
  // Under the lock: a descriptor is removed before it is closed, so every fd
  // here still belongs to the socket that registered it.
  for (const int fd : fds_) ::shutdown(fd, SHUT_RDWR);
}

}  // namespace fake_proxy
