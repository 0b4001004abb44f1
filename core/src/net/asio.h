// The one include for Boost.Asio in the gateway, with the names every file
// uses. <utility> comes first: Boost 1.74's awaitable.hpp uses std::exchange
// without including it.
#pragma once

#include <utility>

#include <boost/asio.hpp>

namespace modelgw::net {

namespace asio = boost::asio;
using Executor = asio::any_io_executor;
// A coroutine that runs on an event loop (C++20, Asio's awaitable).
template <class T = void>
using Task = asio::awaitable<T>;
using asio::use_awaitable;

}  // namespace modelgw::net
