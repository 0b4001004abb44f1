// A connected socket (plain or TLS) with a read buffer, whose reads wait in
// short poll() slices so that a stop request or an idle timeout always ends
// them. Writes block, bounded by the socket's send timeout.
#pragma once

#include <Poco/Net/StreamSocket.h>

#include <chrono>
#include <string>
#include <string_view>

#include "runtime.h"

namespace fake_proxy {

enum class ReadStatus {
  Data,      // at least one byte was appended to buffer()
  Eof,       // the peer closed its sending side
  Timeout,   // nothing arrived within the idle timeout
  Stopped,   // the process is stopping
  Error,     // reset, TLS failure, ...
  PeerGone,  // the watched socket (see fill()) hung up
};

enum class Transport { Plain, Tls };

class BufferedSocket {
 public:
  BufferedSocket(Poco::Net::StreamSocket socket, Runtime& runtime, Transport transport);
  ~BufferedSocket();
  BufferedSocket(const BufferedSocket&) = delete;
  BufferedSocket& operator=(const BufferedSocket&) = delete;

  // Waits up to `idle` for bytes and appends what one read returns. When
  // `watchFd` >= 0, a hang-up on that socket ends the wait with PeerGone
  // (used to notice a client leaving while its response is still pending).
  ReadStatus fill(std::chrono::milliseconds idle, int watchFd = -1);

  // Sends everything or throws Poco::Exception.
  void writeAll(std::string_view bytes);

  std::string& buffer() { return buffer_; }
  int fd() const { return fd_; }
  // POCO's TLS sockets cannot half-close (shutdownSend() does nothing), so a
  // relay must end the whole connection instead.
  bool halfCloseable() const { return transport_ == Transport::Plain; }
  Runtime& runtime() { return runtime_; }
  // Half-close (plain TCP only); errors are ignored since the peer may be gone.
  void shutdownSend();
  // True if the peer sent something or closed while we expected silence:
  // such a kept-alive connection must not be reused.
  bool readableNow() const;
  // Bytes a read would return at once without poll() seeing them: data
  // OpenSSL has already decrypted. Always false for plain TCP.
  bool hasDecryptedInput();

 private:
  Poco::Net::StreamSocket socket_;
  Runtime& runtime_;
  int fd_;
  Transport transport_;
  std::string buffer_;
};

// Connects to 127.0.0.1:port within `timeout`; throws Poco::Exception.
Poco::Net::StreamSocket connectLoopback(int port, std::chrono::milliseconds timeout);

}  // namespace fake_proxy
