// The spdlog sink of the serving process: each event is formatted on the
// thread that logs it (LineFormatter keeps no state, so no lock is needed)
// and queued on the LineWriter, which writes batches from its own thread.
#pragma once

#include "logging/line_writer.h"

#include <spdlog/details/null_mutex.h>
#include <spdlog/sinks/base_sink.h>

#include <memory>

namespace modelgw::logging {

class BatchedSink final : public spdlog::sinks::base_sink<spdlog::details::null_mutex> {
 public:
  explicit BatchedSink(std::shared_ptr<LineWriter> writer) : writer_(std::move(writer)) {}

 protected:
  void sink_it_(const spdlog::details::log_msg& msg) override {
    spdlog::memory_buf_t line;
    formatter_->format(msg, line);
    writer_->append(std::string_view(line.data(), line.size()));
  }
  void flush_() override { writer_->flush(); }

 private:
  std::shared_ptr<LineWriter> writer_;
};

}  // namespace modelgw::logging
