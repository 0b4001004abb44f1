// Helpers for tests that run the fake_upstream binary: start and stop the
// process, and speak raw HTTP/1.1 to it so that truncated bodies, chunk sizes
// and line endings stay visible (a client library would hide them). Every
// wait is bounded in time and size.
#pragma once

#include <Poco/Pipe.h>
#include <Poco/Process.h>

#include <chrono>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace fake_upstream::test {

// A running fake_upstream on 127.0.0.1; stopped (and if need be killed) when
// destroyed.
class FakeUpstream {
 public:
  // Starts `binary` with `args` and waits up to 10 s for "LISTENING <port>".
  // Throws std::runtime_error if that line does not come.
  explicit FakeUpstream(const std::string& binary, const std::vector<std::string>& args = {});
  ~FakeUpstream();

  FakeUpstream(const FakeUpstream&) = delete;
  FakeUpstream& operator=(const FakeUpstream&) = delete;

  int port() const { return port_; }

  // SIGTERM, then up to 5 s for a clean exit, then SIGKILL. Returns the exit
  // code, or -1 if it had to be killed. Later calls return the same value.
  int stop();

 private:
  int readListeningPort();

  Poco::Pipe out_;
  std::unique_ptr<Poco::ProcessHandle> handle_;
  int port_ = 0;
  int exitCode_ = -1;
};

struct RawResult {
  std::string bytes;
  bool eof = false;  // the server closed the connection before the deadline
};

// Sends `request` and reads until the server closes the connection, the
// timeout passes or 64 MiB arrived.
RawResult rawExchange(int port, const std::string& request,
                      std::chrono::milliseconds timeout = std::chrono::seconds(10));

// An HTTP/1.1 request; with a body (or for POST) it gets a JSON content type
// and Content-Length. `close` adds "Connection: close".
std::string buildRequest(const std::string& method, const std::string& path, const std::string& body,
                         const std::vector<std::string>& extraHeaders = {}, bool close = true);

struct Response {
  int status = 0;
  std::map<std::string, std::string> headers;  // lower-case names
  std::string body;                            // de-chunked
  bool chunked = false;
  bool complete = false;           // the whole body arrived (terminating chunk / Content-Length)
  std::vector<size_t> chunkSizes;  // chunked: size of each complete data chunk

  std::string header(const std::string& name) const {
    const auto it = headers.find(name);
    return it == headers.end() ? std::string() : it->second;
  }
};

// Parses whatever arrived, tolerating a body cut short.
Response parseResponse(const std::string& raw);

// One request on a fresh connection ("Connection: close").
Response call(int port, const std::string& method, const std::string& path, const std::string& body = "",
              const std::vector<std::string>& headers = {});

struct SseStream {
  std::vector<std::string> data;      // each event's data, in order
  std::vector<std::string> events;    // each event's "event:" type ("" when it has none), in step with data
  std::vector<std::string> comments;  // lines starting with ':'
};

// Splits an SSE body into events, accepting LF, CRLF and CR line endings.
SseStream parseSse(const std::string& body);

}  // namespace fake_upstream::test
