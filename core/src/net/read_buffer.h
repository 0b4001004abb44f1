// Bytes read from a socket and not yet consumed by a parser: a client
// connection's request (http/connection.cpp) or an upstream's response
// (upstream/upstream_call.cpp). It grows only to what one read asks for and
// frees its storage as soon as nothing is pending, so an idle connection or a
// stream waiting for its next event holds no buffer at all (only the few
// bytes of a split head or chunk line, if any). The room for a read is not
// zero-filled first, as a std::string grown with resize() would be: a read
// asks for 16 KiB and usually gets a few hundred bytes.
#pragma once

#include "net/asio.h"

#include <cstddef>
#include <cstring>
#include <memory>
#include <string_view>

namespace modelgw::net {

class ReadBuffer {
 public:
  std::string_view pending() const { return {data_.get() + begin_, end_ - begin_}; }
  std::size_t size() const { return end_ - begin_; }
  bool empty() const { return begin_ == end_; }
  // Consumed bytes stay where they are until the next prepare() or
  // release_if_empty(): a view handed out of them remains valid until then.
  void consume(std::size_t n) { begin_ += n < end_ - begin_ ? n : end_ - begin_; }

  // Room for `n` more bytes after the pending ones.
  asio::mutable_buffer prepare(std::size_t n) {
    const std::size_t used = end_ - begin_;
    if (capacity_ - end_ < n) {
      if (capacity_ - used >= n) {
        std::memmove(data_.get(), data_.get() + begin_,
                     used);  // pending bytes are few: a split head or chunk line
      } else {
        std::size_t grown = used + n;
        if (grown < capacity_ * 2 && used > 0) grown = capacity_ * 2;
        auto next = std::make_unique_for_overwrite<char[]>(grown);
        if (used > 0) std::memcpy(next.get(), data_.get() + begin_, used);
        data_ = std::move(next);
        capacity_ = grown;
      }
      begin_ = 0;
      end_ = used;
    }
    return {data_.get() + end_, n};
  }
  void commit(std::size_t n) { end_ += n; }

  // Frees the storage when nothing is pending.
  void release_if_empty() {
    if (begin_ == end_) clear();
  }
  // Drops whatever is pending and frees the storage.
  void clear() {
    data_.reset();
    capacity_ = begin_ = end_ = 0;
  }
  std::size_t capacity() const { return capacity_; }

 private:
  std::unique_ptr<char[]> data_;
  std::size_t capacity_ = 0;
  std::size_t begin_ = 0;
  std::size_t end_ = 0;
};

}  // namespace modelgw::net
