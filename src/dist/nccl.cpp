// xpose_nccl.h: a Plan (xpose/distributed.hpp) driven by NCCL's grouped send/receive. A user
// of the public API like any other program: it sees include/ only.
//
// Order of the work, with the exchange on an internal stream X and the rest on the caller's S:
//   S: pack 0, own 0 | pack 1, own 1, wait exch 0, place 0 | ... | wait exch last, place last
//   X:        wait pack 0, exch 0 | wait pack 1, exch 1 | ...
// so that step j's exchange overlaps step j+1's pack, step j's cut of the rank's own block
// and step j-1's place: only the first pack and the last place stand outside the exchange.
#include <cuda_runtime_api.h>
#include <nccl.h>

#include <cstring>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "xpose/nccl.hpp"

namespace {

thread_local std::string last_error_message;

[[noreturn]] void refuse(const std::string& message) { throw xpose::Error(XPOSE_ERROR_INVALID_ARGUMENT, message); }

void check_cuda(cudaError_t code, const char* call) {
  if (code == cudaSuccess) return;
  cudaGetLastError();
  throw xpose::Error(XPOSE_ERROR_CUDA, std::string(call) + ": " + cudaGetErrorName(code) + ": " + cudaGetErrorString(code));
}

void check_nccl(ncclResult_t code, const char* call) {
  if (code == ncclSuccess) return;
  throw xpose::Error(code == ncclInvalidArgument || code == ncclInvalidUsage ? XPOSE_ERROR_INVALID_ARGUMENT
                                                                              : XPOSE_ERROR_CUDA,
                     std::string(call) + ": " + ncclGetErrorString(code));
}
#define XPOSE_CUDA(call) check_cuda((call), #call)
#define XPOSE_NCCL(call) check_nccl((call), #call)

template <class F>
xpose_status_t guarded(F&& f) {
  try {
    f();
    return XPOSE_SUCCESS;
  } catch (const xpose::Error& e) {
    last_error_message = e.what();
    return e.status();
  } catch (const std::bad_alloc&) {
    last_error_message = "out of host memory";
    return XPOSE_ERROR_NOT_SUPPORTED;
  } catch (const std::exception& e) {
    last_error_message = std::string("internal error: ") + e.what();
    return XPOSE_ERROR_NOT_SUPPORTED;
  }
}

struct Comm {
  int nranks = 0, rank = 0, device = 0;
};

Comm comm_facts(ncclComm_t comm) {
  if (!comm) refuse("comm is a null pointer");
  Comm c;
  XPOSE_NCCL(ncclCommCount(comm, &c.nranks));
  XPOSE_NCCL(ncclCommUserRank(comm, &c.rank));
  XPOSE_NCCL(ncclCommCuDevice(comm, &c.device));
  return c;
}

xpose::dist::Split split_of(const int64_t* row_offsets, const int64_t* col_offsets, int64_t batch, int64_t elem_bytes,
                            int nranks, int64_t ld_src = 0, int64_t ld_dst = 0) {
  if (!row_offsets) refuse("row_offsets is a null pointer");
  if (!col_offsets) refuse("col_offsets is a null pointer");
  return {std::vector<int64_t>(row_offsets, row_offsets + nranks + 1),
          std::vector<int64_t>(col_offsets, col_offsets + nranks + 1), batch, elem_bytes, ld_src, ld_dst};
}

// A buffer of `bytes` the exchange and the kernels can use on `device` (Plan::check_buffers
// has checked that it is there): aligned to `align`, device or managed memory.
void check_device_buffer(const char* name, const void* p, int64_t bytes, int64_t align, int device) {
  if (bytes <= 0) return;
  if (reinterpret_cast<uintptr_t>(p) % uint64_t(align))
    refuse(std::string(name) + " is not aligned to " + std::to_string(align) + " bytes");
  cudaPointerAttributes attr{};
  XPOSE_CUDA(cudaPointerGetAttributes(&attr, p));
  if (attr.type == cudaMemoryTypeManaged) return;
  if (attr.type != cudaMemoryTypeDevice)
    refuse(std::string(name) + " is not device memory (NCCL moves device memory; allocate it with cudaMalloc)");
  if (attr.device != device)
    refuse(std::string(name) + " is memory of device " + std::to_string(attr.device) + "; comm is on device " +
           std::to_string(device));
}

// xpose's exchange stream and events on one device, made once; a mutex keeps one call's
// record/wait sequence whole (events are reused from call to call).
struct Lane {
  std::mutex mutex;
  cudaStream_t stream = nullptr;
  std::vector<cudaEvent_t> packed, exchanged;
};

Lane& lane_of(int device) {
  static std::mutex table_mutex;
  static std::vector<Lane*> table;
  std::lock_guard<std::mutex> lock(table_mutex);
  if (size_t(device) >= table.size()) table.resize(size_t(device) + 1, nullptr);
  if (!table[size_t(device)]) {
    auto lane = std::make_unique<Lane>();
    // The highest priority: NCCL's blocks then take SMs as soon as the pack and place
    // kernels' blocks retire, rather than after their whole grids, so the two overlap.
    int least = 0, greatest = 0;
    XPOSE_CUDA(cudaDeviceGetStreamPriorityRange(&least, &greatest));
    XPOSE_CUDA(cudaStreamCreateWithPriority(&lane->stream, cudaStreamNonBlocking, greatest));
    table[size_t(device)] = lane.release();  // lives as long as the process
  }
  return *table[size_t(device)];
}

void grow_events(std::vector<cudaEvent_t>* events, int n) {
  while (int(events->size()) < n) {
    cudaEvent_t e;
    XPOSE_CUDA(cudaEventCreateWithFlags(&e, cudaEventDisableTiming));
    events->push_back(e);
  }
}

void exchange(const xpose::dist::Plan& plan, int step, void* workspace, ncclComm_t comm, cudaStream_t stream) {
  auto* ws = static_cast<unsigned char*>(workspace);
  XPOSE_NCCL(ncclGroupStart());
  for (const auto& m : plan.sends(step)) XPOSE_NCCL(ncclSend(ws + m.offset, m.bytes, ncclUint8, m.peer, comm, stream));
  for (const auto& m : plan.recvs(step)) XPOSE_NCCL(ncclRecv(ws + m.offset, m.bytes, ncclUint8, m.peer, comm, stream));
  XPOSE_NCCL(ncclGroupEnd());
}

}  // namespace

namespace xpose::nccl {

void transpose(const void* src, int64_t ld_src, void* dst, int64_t ld_dst, const int64_t* row_offsets,
               const int64_t* col_offsets, int64_t batch, int64_t elem_bytes, void* workspace,
               size_t workspace_bytes, ncclComm_t comm, cudaStream_t stream, const dist::Options& options) {
  const Comm c = comm_facts(comm);
  int current = 0;
  XPOSE_CUDA(cudaGetDevice(&current));
  if (current != c.device)
    refuse("the current device is " + std::to_string(current) + "; comm is on device " + std::to_string(c.device));
  const dist::Plan plan(split_of(row_offsets, col_offsets, batch, elem_bytes, c.nranks, ld_src, ld_dst), c.rank,
                        options);
  if (workspace_bytes < plan.workspace_bytes())
    refuse("workspace_bytes is " + std::to_string(workspace_bytes) + "; this rank needs " +
           std::to_string(plan.workspace_bytes()) + " (xpose_nccl_transpose_workspace)");
  plan.check_buffers(src, dst, workspace);
  check_device_buffer("src", src, plan.src_bytes(), elem_bytes, c.device);
  check_device_buffer("dst", dst, plan.dst_bytes(), elem_bytes, c.device);
  check_device_buffer("workspace", workspace, int64_t(plan.workspace_bytes()), 256, c.device);

  const int steps = plan.steps();
  if (steps == 0) return plan.transpose_own(src, dst, stream);
  Lane& lane = lane_of(c.device);
  std::lock_guard<std::mutex> lock(lane.mutex);
  grow_events(&lane.packed, steps);
  grow_events(&lane.exchanged, steps);
  for (int j = 0; j < steps; ++j) {
    plan.pack(j, src, workspace, stream);
    XPOSE_CUDA(cudaEventRecord(lane.packed[size_t(j)], stream));
    XPOSE_CUDA(cudaStreamWaitEvent(lane.stream, lane.packed[size_t(j)], 0));
    exchange(plan, j, workspace, comm, lane.stream);
    XPOSE_CUDA(cudaEventRecord(lane.exchanged[size_t(j)], lane.stream));
    plan.transpose_own(j, src, dst, stream);
    if (j > 0) {
      XPOSE_CUDA(cudaStreamWaitEvent(stream, lane.exchanged[size_t(j - 1)], 0));
      plan.place(j - 1, workspace, dst, stream);
    }
  }
  XPOSE_CUDA(cudaStreamWaitEvent(stream, lane.exchanged[size_t(steps - 1)], 0));
  plan.place(steps - 1, workspace, dst, stream);
}

size_t workspace_bytes(const int64_t* row_offsets, const int64_t* col_offsets, int64_t batch, int64_t elem_bytes,
                       ncclComm_t comm, const dist::Options& options) {
  const Comm c = comm_facts(comm);
  return dist::Plan(split_of(row_offsets, col_offsets, batch, elem_bytes, c.nranks), c.rank, options).workspace_bytes();
}

}  // namespace xpose::nccl

namespace {

// What every rank must agree on, as numbers all ranks compare.
std::vector<int64_t> descriptor(const xpose::dist::Split& s, int nranks) {
  uint64_t h = 1469598103934665603ull;  // FNV-1a over the offsets
  for (const auto* list : {&s.row_offsets, &s.col_offsets})
    for (int64_t v : *list)
      for (int i = 0; i < 8; ++i) h = (h ^ ((uint64_t(v) >> (8 * i)) & 0xff)) * 1099511628211ull;
  return {int64_t(nranks), s.batch, s.elem_bytes, s.row_offsets.back(), s.col_offsets.back(), int64_t(h)};
}

void check_agreement(const int64_t* row_offsets, const int64_t* col_offsets, int64_t batch, int64_t elem_bytes,
                     ncclComm_t comm, cudaStream_t stream) {
  const Comm c = comm_facts(comm);
  // A rank whose own arguments are wrong still takes part (else the others would wait for it
  // forever), with a descriptor that says so.
  constexpr size_t n = 6;
  std::vector<int64_t> mine(n, -1);
  std::string own_error;
  try {
    const xpose::dist::Split split = split_of(row_offsets, col_offsets, batch, elem_bytes, c.nranks);
    const xpose::dist::Plan plan(split, c.rank);
    mine = descriptor(split, c.nranks);
  } catch (const xpose::Error& e) {
    own_error = e.what();
  }
  std::vector<int64_t> all(n * size_t(c.nranks));
  int64_t* buffer = nullptr;
  XPOSE_CUDA(cudaMalloc(&buffer, all.size() * sizeof(int64_t)));
  try {
    XPOSE_CUDA(cudaMemcpyAsync(buffer + n * size_t(c.rank), mine.data(), n * sizeof(int64_t), cudaMemcpyHostToDevice,
                               stream));
    XPOSE_NCCL(ncclAllGather(buffer + n * size_t(c.rank), buffer, n, ncclInt64, comm, stream));
    XPOSE_CUDA(cudaMemcpyAsync(all.data(), buffer, all.size() * sizeof(int64_t), cudaMemcpyDeviceToHost, stream));
    XPOSE_CUDA(cudaStreamSynchronize(stream));
  } catch (...) {
    cudaFree(buffer);
    throw;
  }
  XPOSE_CUDA(cudaFree(buffer));
  if (!own_error.empty()) refuse(own_error);
  static const char* const names[] = {"nranks", "batch", "elem_bytes", "rows", "cols", "offsets"};
  for (int r = 0; r < c.nranks; ++r) {
    const int64_t* theirs = &all[size_t(r) * n];
    if (theirs[0] == -1) refuse("rank " + std::to_string(r) + "'s arguments are invalid (its own call says why)");
    for (size_t i = 0; i < n; ++i)
      if (theirs[i] != mine[i])
        refuse("ranks disagree: rank " + std::to_string(r) + " passes other " + names[i] + " than rank " +
               std::to_string(c.rank) +
               (i < 5 ? " (" + std::to_string(theirs[i]) + " against " + std::to_string(mine[i]) + ")" : std::string()));
  }
}

}  // namespace

extern "C" {

xpose_status_t xpose_nccl_transpose_workspace(const int64_t* row_offsets, const int64_t* col_offsets, int64_t batch,
                                              int64_t elem_bytes, ncclComm_t comm, size_t* bytes) {
  return guarded([&] {
    if (!bytes) refuse("bytes is a null pointer");
    *bytes = xpose::nccl::workspace_bytes(row_offsets, col_offsets, batch, elem_bytes, comm);
  });
}

xpose_status_t xpose_nccl_transpose(const void* src, int64_t ld_src, void* dst, int64_t ld_dst,
                                    const int64_t* row_offsets, const int64_t* col_offsets, int64_t batch,
                                    int64_t elem_bytes, void* workspace, size_t workspace_bytes, ncclComm_t comm,
                                    cudaStream_t stream) {
  return guarded([&] {
    xpose::nccl::transpose(src, ld_src, dst, ld_dst, row_offsets, col_offsets, batch, elem_bytes, workspace,
                           workspace_bytes, comm, stream);
  });
}

xpose_status_t xpose_nccl_check(const int64_t* row_offsets, const int64_t* col_offsets, int64_t batch,
                                int64_t elem_bytes, ncclComm_t comm, cudaStream_t stream) {
  return guarded([&] { check_agreement(row_offsets, col_offsets, batch, elem_bytes, comm, stream); });
}

const char* xpose_nccl_last_error(void) { return last_error_message.c_str(); }

}  // extern "C"
