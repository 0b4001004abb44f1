// The one include for Boost.Asio in the gateway, with the names every file
// uses. <utility> comes first: Boost 1.74's awaitable.hpp uses std::exchange
// without including it.
//
// Every socket, timer and coroutine of the gateway runs on an event loop's
// io_context, so they name its executor type rather than the type-erased
// any_io_executor: each operation's dispatch is then a direct call instead
// of a lookup through any_executor's function table and property queries.
#pragma once

#include <utility>

#include <boost/asio.hpp>

namespace modelgw::net {

namespace asio = boost::asio;
using Executor = asio::io_context::executor_type;
// A coroutine that runs on an event loop (C++20, Asio's awaitable).
template <class T = void>
using Task = asio::awaitable<T, Executor>;
inline constexpr asio::use_awaitable_t<Executor> use_awaitable;

using TcpSocket = asio::basic_stream_socket<asio::ip::tcp, Executor>;
using TcpAcceptor = asio::basic_socket_acceptor<asio::ip::tcp, Executor>;
using TcpResolver = asio::ip::basic_resolver<asio::ip::tcp, Executor>;
using SteadyTimer = asio::basic_waitable_timer<std::chrono::steady_clock,
                                               asio::wait_traits<std::chrono::steady_clock>, Executor>;

}  // namespace modelgw::net
