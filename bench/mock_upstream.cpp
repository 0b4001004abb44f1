// bench_mock_upstream: an event-driven OpenAI chat completions (and Responses
// API, embeddings and Anthropic Messages API) upstream for the benchmark. One
// io_context per thread (1 or 2), each with its own SO_REUSEPORT acceptor, one
// coroutine per connection: thousands of open streams cost a coroutine frame
// and a timer each, not a thread, so the mock stays cheap next to the proxies
// it is measured behind.
//
//   bench_mock_upstream [--port P] [--threads T] [--api-key K] [--answer-bytes N] [--words W]
//
// Prints "LISTENING <port>" on stdout once it accepts. POST /v1/chat/completions
// answers a JSON completion with usage, or with "stream": true an SSE stream of
// W word chunks, a finish chunk, a usage chunk and [DONE], waiting chunk_delay_ms
// (from the model "name+chunk_delay_ms=D+words=W") before every event but the
// first. POST /v1/responses (the Responses API, as the gateway's native path
// sends it: "store": false, no previous_response_id, else 400) answers the same
// text and tokens as a "response" object, or streamed as the typed events
// response.created ... response.completed, the same delay apart. POST
// /v1/messages (Anthropic's, the key in x-api-key; not streamed) answers the
// same text as a "message"; POST /v1/embeddings, whatever it asks, one fixed
// list of 100 vectors of 1,536 floats (about 1.9 MB, built at start-up). Any
// GET answers 200 (readiness). Stops on SIGTERM or SIGINT.
#include "mock_embeddings.h"
#include "mock_wire.h"

#include <utility>  // before asio: Boost 1.74's awaitable.hpp uses std::exchange

#include <boost/asio.hpp>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

namespace {

namespace asio = boost::asio;
using asio::use_awaitable;
using asio::ip::tcp;

constexpr std::size_t kMaxHead = 64 * 1024;
constexpr std::size_t kMaxBody = 64 * 1024 * 1024;

struct Settings {
  unsigned short port = 0;
  int threads = 1;
  std::string api_key;
  std::size_t answer_bytes = 1024;
  int words = 8;  // stream chunks when the model does not say
  // The embeddings answer, head and body: built once, every request is sent
  // the same bytes (no per-request cost of the mock's beyond the write).
  std::string embeddings_answer;
};

// Which API a POST asks: chat completions, the Responses API, Anthropic's
// Messages API or embeddings.
enum class Api { chat, responses, messages, embeddings };

std::optional<Api> api_of(const std::string& path) {
  if (path.rfind("/v1/chat/completions", 0) == 0) return Api::chat;
  if (path.rfind("/v1/responses", 0) == 0) return Api::responses;
  if (path == "/v1/messages") return Api::messages;  // not .../count_tokens
  if (path.rfind("/v1/embeddings", 0) == 0) return Api::embeddings;
  return std::nullopt;
}

// Bearer for OpenAI's APIs, x-api-key for Anthropic's (either is taken).
bool authorized(const bench::mock::RequestHead& head, const Settings& s) {
  return s.api_key.empty() || head.bearer == s.api_key || head.api_key == s.api_key;
}

// Why the mock refuses a request of `api` (400), or empty.
std::string_view refusal(Api api, std::string_view body) {
  if (api == Api::responses) return bench::mock::responses_refusal(body);
  if (api == Api::messages) return bench::mock::messages_refusal(body);
  return {};
}

asio::awaitable<void> stream(tcp::socket& sock, const bench::mock::ChatAsk& ask, std::size_t prompt_bytes,
                             const Settings& s, Api api) {
  const int words = ask.words >= 0 ? ask.words : s.words;
  asio::steady_timer timer(sock.get_executor());
  // A held stream (one with a delay) ends its connection: a proxy's upstream
  // pool would otherwise keep every one of thousands idle, on descriptors the
  // next scenario's streams need (through another provider: a second pool).
  std::string out = bench::mock::stream_head(ask.delay_ms > 0);
  const std::size_t n =
      api == Api::responses ? bench::mock::responses_group_count(words) : bench::mock::event_count(words);
  for (std::size_t i = 0; i < n; ++i) {
    if (i > 0 && ask.delay_ms > 0) {
      timer.expires_after(std::chrono::milliseconds(ask.delay_ms));
      co_await timer.async_wait(use_awaitable);
    }
    if (api == Api::responses) {
      out += bench::mock::responses_group(ask, words, i, prompt_bytes);
    } else {
      out += bench::mock::chunk_event(bench::mock::event_payload(ask, words, i, prompt_bytes));
    }
    if (i + 1 == n) out += bench::mock::kLastChunk;
    co_await asio::async_write(sock, asio::buffer(out), use_awaitable);
    out.clear();
    // An open stream keeps no buffer while it waits.
    if (ask.delay_ms > 0) out.shrink_to_fit();
  }
}

asio::awaitable<void> serve(tcp::socket sock, const Settings& s) {
  try {
    sock.set_option(tcp::no_delay(true));
    std::string buf;
    for (;;) {
      const std::size_t head_len = co_await asio::async_read_until(sock, asio::dynamic_buffer(buf, kMaxHead),
                                                                   "\r\n\r\n", use_awaitable);
      const auto head = bench::mock::parse_request_head(std::string_view(buf).substr(0, head_len));
      if (!head || head->content_length > kMaxBody) {
        const std::string answer = bench::mock::error_response(400, "bad_request", "malformed request", true);
        co_await asio::async_write(sock, asio::buffer(answer), use_awaitable);
        co_return;
      }
      const std::size_t need = head_len + head->content_length;
      if (buf.size() < need) {
        co_await asio::async_read(sock, asio::dynamic_buffer(buf, kMaxHead + kMaxBody),
                                  asio::transfer_exactly(need - buf.size()), use_awaitable);
      }
      const std::string_view body = std::string_view(buf).substr(head_len, head->content_length);
      std::string answer;
      const std::optional<Api> api = api_of(head->path);
      if (head->method == "GET") {
        answer =
            "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 11\r\n\r\n{\"ok\":true}";
      } else if (head->method != "POST" || !api) {
        answer = bench::mock::error_response(404, "not_found", "unknown path", false);
      } else if (!authorized(*head, s)) {
        answer = bench::mock::error_response(401, "invalid_api_key", "wrong or missing API key", false);
      } else if (const std::string_view why = refusal(*api, body); !why.empty()) {
        answer = bench::mock::error_response(400, "invalid_request_error", why, false);
      } else if (*api == Api::embeddings) {
        buf.erase(0, need);
        co_await asio::async_write(sock, asio::buffer(s.embeddings_answer), use_awaitable);
        if (head->close) co_return;
        continue;
      } else {
        const auto ask = bench::mock::read_chat(body);
        const std::size_t prompt_bytes = body.size();
        buf.erase(0, need);
        if (ask.stream) {
          if (ask.delay_ms > 0) buf.shrink_to_fit();
          co_await stream(sock, ask, prompt_bytes, s, *api);
          if (head->close || ask.delay_ms > 0) co_return;
          continue;
        }
        answer =
            *api == Api::responses  ? bench::mock::responses_json_response(ask, s.answer_bytes, prompt_bytes)
            : *api == Api::messages ? bench::mock::messages_json_response(ask, s.answer_bytes, prompt_bytes)
                                    : bench::mock::json_response(ask, s.answer_bytes, prompt_bytes);
        co_await asio::async_write(sock, asio::buffer(answer), use_awaitable);
        if (head->close) co_return;
        continue;
      }
      buf.erase(0, need);
      co_await asio::async_write(sock, asio::buffer(answer), use_awaitable);
      if (head->close) co_return;
    }
  } catch (const std::exception&) {
    // The peer closed or reset: nothing to report, the socket closes here.
  }
}

asio::awaitable<void> accept_loop(tcp::acceptor& acceptor, const Settings& s) {
  asio::steady_timer backoff(acceptor.get_executor());
  for (;;) {
    bool failed = false;
    try {
      tcp::socket sock = co_await acceptor.async_accept(use_awaitable);
      asio::co_spawn(acceptor.get_executor(), serve(std::move(sock), s), asio::detached);
    } catch (const std::exception&) {
      failed = true;
    }
    if (failed) {
      if (!acceptor.is_open()) co_return;
      // EMFILE and the like: wait a moment instead of spinning.
      backoff.expires_after(std::chrono::milliseconds(10));
      co_await backoff.async_wait(use_awaitable);
    }
  }
}

Settings parse(int argc, char** argv) {
  Settings s;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string name = argv[i];
    const std::string value = argv[i + 1];
    if (name == "--port") {
      s.port = static_cast<unsigned short>(std::stoi(value));
    } else if (name == "--threads") {
      s.threads = std::max(1, std::min(64, std::stoi(value)));
    } else if (name == "--api-key") {
      s.api_key = value;
    } else if (name == "--answer-bytes") {
      s.answer_bytes = static_cast<std::size_t>(std::stoul(value));
    } else if (name == "--words") {
      s.words = std::stoi(value);
    } else {
      std::cerr << "bench_mock_upstream: unknown option " << name << "\n";
      std::exit(2);
    }
  }
  return s;
}

void open_acceptor(tcp::acceptor& a, unsigned short port) {
  const tcp::endpoint ep(asio::ip::make_address("127.0.0.1"), port);
  a.open(ep.protocol());
  a.set_option(asio::socket_base::reuse_address(true));
  a.set_option(asio::detail::socket_option::boolean<SOL_SOCKET, SO_REUSEPORT>(true));
  a.bind(ep);
  a.listen(4096);
}

}  // namespace

int main(int argc, char** argv) {
  Settings parsed = parse(argc, argv);
  // About 10 tokens per input, as the bench's short passages are.
  parsed.embeddings_answer = bench::mock::embeddings_response(
      bench::mock::kEmbeddingVectors, bench::mock::kEmbeddingDimensions, 10 * bench::mock::kEmbeddingVectors);
  const Settings& s = parsed;
  try {
    std::vector<std::unique_ptr<asio::io_context>> loops;
    std::vector<std::unique_ptr<tcp::acceptor>> acceptors;
    unsigned short port = s.port;
    for (int i = 0; i < s.threads; ++i) {
      loops.push_back(std::make_unique<asio::io_context>(1));
      acceptors.push_back(std::make_unique<tcp::acceptor>(*loops.back()));
      open_acceptor(*acceptors.back(), port);
      port = acceptors.back()->local_endpoint().port();
      asio::co_spawn(*loops.back(), accept_loop(*acceptors.back(), s), asio::detached);
    }
    asio::signal_set signals(*loops.front(), SIGINT, SIGTERM);
    signals.async_wait([&](const boost::system::error_code&, int) {
      for (auto& l : loops) l->stop();
    });
    std::cout << "LISTENING " << port << std::endl;
    std::vector<std::thread> threads;
    for (std::size_t i = 1; i < loops.size(); ++i) threads.emplace_back([&l = *loops[i]] { l.run(); });
    loops.front()->run();
    for (auto& t : threads) t.join();
  } catch (const std::exception& e) {
    std::cerr << "bench_mock_upstream: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
