// Times GPU work on one stream with CUDA events: warm-up, then repeated runs, reported as
// median/min/max. Two modes: each call alone (L2 flushed before it when a flush buffer is
// set), or many calls captured into one CUDA graph and replayed (time per call).
#pragma once

#include <cuda_runtime_api.h>

#include <functional>
#include <string>
#include <vector>

namespace xpose::bench {

struct Stats {
  double median = 0, min = 0, max = 0;  // milliseconds
};

// Median, min and max of a non-empty sample.
Stats summarize(std::vector<double> ms);

// --rounds: time(i) for each of `rows` rows, `rounds` times in turn, round r starting at row r,
// so that no row gains from its place in the order.
void in_rounds(size_t rows, int rounds, const std::function<void(size_t)>& time);

// One call of the work under test: enqueues on the stream, returns "" or what failed.
using Work = std::function<std::string(cudaStream_t)>;

class GpuTimer {
 public:
  GpuTimer(cudaStream_t stream, int warmup, int reps);
  ~GpuTimer();
  GpuTimer(const GpuTimer&) = delete;
  GpuTimer& operator=(const GpuTimer&) = delete;

  // A buffer overwritten before each timed call in events mode (nullptr: none).
  void set_flush(void* buffer, size_t bytes) { flush_ = buffer, flush_bytes_ = bytes; }

  // Throw std::runtime_error with the work's message when a call fails.
  Stats events(const Work& work);
  // The same calls' milliseconds, unsummarized (to pool rounds that interleave several works).
  std::vector<double> event_samples(const Work& work);
  Stats graph(const Work& work);
  // Host time per call: the wall time of enqueuing `calls` calls back to back (the stream
  // drained before each such run, so no call waits for room in the launch queue).
  Stats host(const Work& work, int calls = 100);

 private:
  double elapsed_ms(const std::function<void()>& enqueue);
  cudaStream_t stream_;
  int warmup_, reps_;
  cudaEvent_t start_ = nullptr, stop_ = nullptr;
  void* flush_ = nullptr;
  size_t flush_bytes_ = 0;
};

}  // namespace xpose::bench
