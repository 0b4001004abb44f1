#include "edge_faults.h"

#include <Poco/Net/HTTPServerRequest.h>
#include <Poco/Net/HTTPServerResponse.h>
#include <Poco/Net/StreamSocket.h>

#include <poll.h>
#include <sys/socket.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdio>

#include "http_util.h"
#include "shutdown.h"

namespace fake_upstream {
namespace {

std::atomic<int> interimOpen{0};
std::atomic<int> interimTotal{0};

// Counts one connection inside sendInterimForever for as long as it lives.
class InterimScope {
 public:
  InterimScope() {
    interimOpen.fetch_add(1);
    interimTotal.fetch_add(1);
  }
  ~InterimScope() { interimOpen.fetch_sub(1); }
  InterimScope(const InterimScope&) = delete;
  InterimScope& operator=(const InterimScope&) = delete;
};

// Writes all of `bytes` on the raw socket; false if the peer is gone.
bool sendAll(int fd, std::string_view bytes) {
  while (!bytes.empty()) {
    const ssize_t n = ::send(fd, bytes.data(), bytes.size(), MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    bytes.remove_prefix(static_cast<size_t>(n));
  }
  return true;
}

void closeAfterRawAnswer(Poco::Net::StreamSocket& socket, Poco::Net::HTTPServerResponse& response) {
  try {
    socket.shutdown();
  } catch (...) {
    // Already gone.
  }
  // POCO must neither answer on top of the raw bytes nor wait for another request.
  response.setKeepAlive(false);
}

}  // namespace

void sendInterimForever(Poco::Net::HTTPServerRequest& request, Poco::Net::HTTPServerResponse& response) {
  auto& socket = socketOf(request);
  const int fd = socket.impl()->sockfd();
  const InterimScope counted;
  // A bound of its own, so a gateway that never lets go cannot wedge a test run.
  const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  static constexpr std::string_view kContinue = "HTTP/1.1 100 Continue\r\n\r\n";
  while (!stopRequested() && std::chrono::steady_clock::now() < until) {
    if (!sendAll(fd, kContinue)) break;
    // Wait 100 ms, watching for the peer's close (EOF) meanwhile.
    pollfd p{fd, POLLIN, 0};
    const int ready = ::poll(&p, 1, 100);
    if (ready < 0 && errno != EINTR) break;
    if (ready > 0) {
      char scrap[512];
      const ssize_t n = ::recv(fd, scrap, sizeof scrap, 0);
      if (n <= 0) break;
    }
  }
  closeAfterRawAnswer(socket, response);
}

InterimCounts interimCounts() {
  return InterimCounts{interimOpen.load(), interimTotal.load()};
}

void sendBothLengths(Poco::Net::HTTPServerRequest& request, Poco::Net::HTTPServerResponse& response,
                     std::string_view body) {
  auto& socket = socketOf(request);
  char size[32];
  const int sizeLength = std::snprintf(size, sizeof size, "%zx", body.size());
  std::string out =
      "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: " + std::to_string(body.size()) +
      "\r\nTransfer-Encoding: chunked\r\n\r\n";
  out.append(size, static_cast<size_t>(sizeLength));
  out += "\r\n";
  out += body;
  out += "\r\n0\r\n\r\n";
  sendAll(socket.impl()->sockfd(), out);
  closeAfterRawAnswer(socket, response);
}

bool writeLongLine(std::ostream& out, int bytes) {
  constexpr int kPiece = 16 * 1024;
  const std::string piece(kPiece, 'x');
  out << "data: {\"pad\":\"";
  out.flush();
  for (int left = bytes; left > 0 && out.good(); left -= kPiece) {
    out.write(piece.data(), std::min(left, kPiece));
    out.flush();
    if (!sleepUnlessStopped(10)) return false;
  }
  out << "\"}\n\n";
  out.flush();
  return out.good();
}

const std::string& floodText() {
  static const std::string text(1000, 'f');
  return text;
}

}  // namespace fake_upstream
