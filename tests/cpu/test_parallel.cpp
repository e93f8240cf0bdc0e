// The CPU path's thread pool where threads cannot be had: in a child process whose address
// space leaves room for a few thread stacks at most, the work still runs to the end, on fewer
// threads, and the process neither ends nor sees an exception.
#include <gtest/gtest.h>
#include <pthread.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <vector>

#include "cpu/parallel.hpp"
#include "xpose/xpose.hpp"

namespace xpose::testing {
namespace {

// Bytes of address space the process holds now (/proc/self/statm's first field, in pages).
long mapped_bytes() {
  long pages = 0;
  if (FILE* f = std::fopen("/proc/self/statm", "r")) {
    if (std::fscanf(f, "%ld", &pages) != 1) pages = 0;
    std::fclose(f);
  }
  return pages * sysconf(_SC_PAGESIZE);
}

// Runs body() in a child whose thread stacks are 64 MiB and whose address space can grow by
// `room` bytes: the child's exit status (0 when body returned true; 128 + a signal's number).
template <class Body>
int in_tight_child(long room, const Body& body) {
  const pid_t pid = fork();
  if (pid == 0) {
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setstacksize(&attr, size_t(64) << 20);
    pthread_setattr_default_np(&attr);
    const rlim_t limit = rlim_t(mapped_bytes() + room);
    const rlimit r{limit, limit};
    setrlimit(RLIMIT_AS, &r);
    bool passed = false;
    try {
      passed = body();
    } catch (...) {
      _exit(3);
    }
    _exit(passed ? 0 : 1);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  return WIFSIGNALED(status) ? 128 + WTERMSIG(status) : WEXITSTATUS(status);
}

// The sanitizers reserve address space for shadow memory as they go: an address-space limit
// starves them, not the pool.
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
constexpr bool kAddressSpaceLimits = false;
#else
constexpr bool kAddressSpaceLimits = true;
#endif

TEST(ThreadPool, RunsEveryItemWhenSomeThreadsCannotStart) {
  if (!kAddressSpaceLimits) GTEST_SKIP() << "an address-space limit starves the sanitizer's own allocations";
  // Room for two 64 MiB stacks and not a third: the pool starts two of its seven, then fails.
  for (long room : {long(150) << 20, long(70) << 20, long(0)}) {
    SCOPED_TRACE("room " + std::to_string(room >> 20) + " MiB");
    EXPECT_EQ(0, in_tight_child(room, [] {
                std::atomic<int> runs{0};
                std::vector<std::atomic<int>> seen(1000);
                std::atomic<int64_t> next{0};
                cpu::run_on_threads(8, [&] {
                  ++runs;
                  for (int64_t i = next++; i < 1000; i = next++) ++seen[size_t(i)];
                });
                for (const auto& s : seen)
                  if (s != 1) return false;
                return runs >= 1 && runs < 8;
              }));
  }
}

TEST(ThreadPool, TransposeHostFinishesWithoutThreads) {
  if (!kAddressSpaceLimits) GTEST_SKIP() << "an address-space limit starves the sanitizer's own allocations";
  const int64_t n = 2048;  // 4 MiB of bytes: every core wanted
  std::vector<uint8_t> src(size_t(n * n)), dst(size_t(n * n));
  for (size_t i = 0; i < src.size(); ++i) src[i] = uint8_t(i * 2654435761u >> 24);
  EXPECT_EQ(0, in_tight_child(0, [&] {
              transpose_host(src.data(), dst.data(), 1, Shape{n, n});
              for (int64_t i = 0; i < n; ++i)
                for (int64_t j = 0; j < n; ++j)
                  if (dst[size_t(j * n + i)] != src[size_t(i * n + j)]) return false;
              return true;
            }));
}

}  // namespace
}  // namespace xpose::testing
