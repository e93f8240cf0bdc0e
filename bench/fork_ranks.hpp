// One process per GPU without a launcher: fork P children, give them one NCCL unique id
// (made by rank 0, whose bootstrap root then lives in rank 0), and collect their exit codes.
// The parent itself never touches CUDA, so each child starts clean. Used by the NCCL test
// and xpose-dist-bench; torchrun does the same for the Python side.
#pragma once

#include <cuda_runtime_api.h>
#include <nccl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <functional>
#include <vector>

namespace xpose::ranks {

// The CUDA device count, read in a child so that this process stays without a CUDA context.
inline int device_count() {
  std::fflush(nullptr);
  int fds[2];
  if (pipe(fds) != 0) return 0;
  const pid_t pid = fork();
  if (pid == 0) {
    int n = 0;
    if (cudaGetDeviceCount(&n) != cudaSuccess) n = 0;
    if (write(fds[1], &n, sizeof n) != sizeof n) _exit(1);
    _exit(0);
  }
  close(fds[1]);
  int n = 0;
  if (pid < 0 || read(fds[0], &n, sizeof n) != sizeof n) n = 0;
  close(fds[0]);
  if (pid > 0) waitpid(pid, nullptr, 0);
  return n;
}

// Runs body(rank, nranks, comm) in P processes, rank r on device r, each with its own NCCL
// communicator; returns how many ranks failed (exited non-zero or died).
inline int run_ranks(int nranks, const std::function<int(int, int, ncclComm_t)>& body) {
  std::vector<std::array<int, 2>> id_pipes(static_cast<size_t>(nranks));
  for (auto& p : id_pipes)
    if (pipe(p.data()) != 0) return nranks;
  std::fflush(nullptr);  // else each child inherits, and prints again, what the parent has buffered
  std::vector<pid_t> pids;
  for (int rank = 0; rank < nranks; ++rank) {
    const pid_t pid = fork();
    if (pid < 0) return nranks;
    if (pid > 0) {
      pids.push_back(pid);
      continue;
    }
    std::setvbuf(stdout, nullptr, _IOLBF, 0);  // lines reach a pipe as they are printed
    ncclUniqueId id;
    if (rank == 0) {
      if (ncclGetUniqueId(&id) != ncclSuccess) _exit(2);
      for (int r = 1; r < nranks; ++r)
        if (write(id_pipes[size_t(r)][1], &id, sizeof id) != sizeof id) _exit(2);
    } else if (read(id_pipes[size_t(rank)][0], &id, sizeof id) != sizeof id) {
      _exit(2);
    }
    ncclComm_t comm = nullptr;
    if (cudaSetDevice(rank) != cudaSuccess || ncclCommInitRank(&comm, nranks, id, rank) != ncclSuccess) {
      std::fprintf(stderr, "[rank %d] could not make its NCCL communicator\n", rank);
      _exit(2);
    }
    const int rc = body(rank, nranks, comm);
    ncclCommDestroy(comm);
    std::fflush(stdout);
    std::fflush(stderr);
    _exit(rc);
  }
  int failed = 0;
  for (pid_t pid : pids) {
    int status = 0;
    if (waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0) ++failed;
  }
  return failed;
}

}  // namespace xpose::ranks
