#include "timer.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <stdexcept>

namespace xpose::bench {
namespace {

void cuda_ok(cudaError_t e, const char* what) {
  if (e != cudaSuccess) throw std::runtime_error(std::string(what) + ": " + cudaGetErrorString(e));
}

void ok(const std::string& failure) {
  if (!failure.empty()) throw std::runtime_error(failure);
}

}  // namespace

Stats summarize(std::vector<double> ms) {
  std::sort(ms.begin(), ms.end());
  const size_t n = ms.size();
  return {n % 2 ? ms[n / 2] : 0.5 * (ms[n / 2 - 1] + ms[n / 2]), ms.front(), ms.back()};
}

void in_rounds(size_t rows, int rounds, const std::function<void(size_t)>& time) {
  for (int round = 0; round < rounds; ++round)
    for (size_t k = 0; k < rows; ++k) time((k + size_t(round)) % rows);
}

GpuTimer::GpuTimer(cudaStream_t stream, int warmup, int reps) : stream_(stream), warmup_(warmup), reps_(reps) {
  cuda_ok(cudaEventCreate(&start_), "cudaEventCreate");
  cuda_ok(cudaEventCreate(&stop_), "cudaEventCreate");
}

GpuTimer::~GpuTimer() {
  cudaEventDestroy(start_);
  cudaEventDestroy(stop_);
}

double GpuTimer::elapsed_ms(const std::function<void()>& enqueue) {
  cuda_ok(cudaEventRecord(start_, stream_), "cudaEventRecord");
  enqueue();
  cuda_ok(cudaEventRecord(stop_, stream_), "cudaEventRecord");
  cuda_ok(cudaEventSynchronize(stop_), "cudaEventSynchronize");
  float ms = 0;
  cuda_ok(cudaEventElapsedTime(&ms, start_, stop_), "cudaEventElapsedTime");
  return ms;
}

std::vector<double> GpuTimer::event_samples(const Work& work) {
  for (int i = 0; i < warmup_; ++i) ok(work(stream_));
  std::vector<double> ms;
  for (int i = 0; i < reps_; ++i) {
    if (flush_) cuda_ok(cudaMemsetAsync(flush_, i & 0xff, flush_bytes_, stream_), "L2 flush");
    ms.push_back(elapsed_ms([&] { ok(work(stream_)); }));
  }
  return ms;
}

Stats GpuTimer::events(const Work& work) { return summarize(event_samples(work)); }

Stats GpuTimer::host(const Work& work, int calls) {
  for (int i = 0; i < std::max(1, warmup_) * calls; ++i) ok(work(stream_));
  cuda_ok(cudaStreamSynchronize(stream_), "cudaStreamSynchronize");
  std::vector<double> ms;
  for (int r = 0; r < reps_; ++r) {
    const auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < calls; ++i) ok(work(stream_));
    const auto t1 = std::chrono::steady_clock::now();
    ms.push_back(std::chrono::duration<double, std::milli>(t1 - t0).count() / calls);
    cuda_ok(cudaStreamSynchronize(stream_), "cudaStreamSynchronize");
  }
  return summarize(ms);
}

Stats GpuTimer::graph(const Work& work) {
  // Enough calls per graph that one replay lasts about a millisecond.
  ok(work(stream_));
  const double one = elapsed_ms([&] { ok(work(stream_)); });
  const int calls = int(std::clamp(std::ceil(1.0 / std::max(one, 1e-4)), 10.0, 1000.0));

  cudaGraph_t graph = nullptr;
  cuda_ok(cudaStreamBeginCapture(stream_, cudaStreamCaptureModeRelaxed), "cudaStreamBeginCapture");
  std::string failure;
  for (int i = 0; i < calls && failure.empty(); ++i) failure = work(stream_);
  const cudaError_t ended = cudaStreamEndCapture(stream_, &graph);
  if (failure.empty() && ended != cudaSuccess) failure = std::string("graph capture: ") + cudaGetErrorString(ended);
  if (!failure.empty()) {
    if (graph) cudaGraphDestroy(graph);
    cudaGetLastError();
    throw std::runtime_error(failure);
  }
  cudaGraphExec_t exec = nullptr;
  const cudaError_t made = cudaGraphInstantiate(&exec, graph, 0);
  cudaGraphDestroy(graph);
  cuda_ok(made, "cudaGraphInstantiate");
  std::vector<double> ms;
  try {
    const auto replay = [&] { cuda_ok(cudaGraphLaunch(exec, stream_), "cudaGraphLaunch"); };
    for (int i = 0; i < std::max(1, warmup_); ++i) replay();
    for (int i = 0; i < reps_; ++i) ms.push_back(elapsed_ms(replay) / calls);
  } catch (...) {
    cudaGraphExecDestroy(exec);
    throw;
  }
  cudaGraphExecDestroy(exec);
  return summarize(ms);
}

}  // namespace xpose::bench
