// xpose_permute on the GPU: random permutations (rank 1-8, odd extents, every element size,
// dense, padded and broadcast src strides, padded dst strides, element-aligned pointers that
// are not 16-byte aligned), dst poisoned and guarded. A served call must write exactly what
// the element-by-element model writes, gaps and guard bands untouched; a refused one must
// write nothing.
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "support/permutations.hpp"
#include "support/testing.hpp"
#include "xpose/xpose.h"

namespace xpose::testing {
namespace {

// Each random permutation three ways: the automatic choice; the N-D kernel its normalized
// form calls for, named (so that permutations the transpose engines take run through the N-D
// kernels too); and the other N-D kernel, which must refuse and write nothing.
TEST(Permute, EveryPermutationMatchesTheModel) {
  XPOSE_REQUIRE_GPU();
  const uint64_t seed = fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  int tiled = 0, rows = 0;
  for (int trial = 0; trial < 600 && !::testing::Test::HasFailure(); ++trial) {
    const RandomPermutation r = draw_permutation(rng, 20000);
    SCOPED_TRACE("trial " + std::to_string(trial) + ": " + r.text());
    const int64_t E = r.elem_bytes;
    const size_t src_offset = size_t(E) * (rng() % 2), dst_offset = size_t(E) * (rng() % 2);  // off 16 bytes
    std::vector<uint8_t> src(src_offset + size_t(r.src_span_elements() * E));
    fill_random(src, rng());
    const size_t dst_bytes = size_t(r.dst_span_elements() * E);
    std::vector<uint8_t> poisoned(guard_bytes + dst_offset + dst_bytes + guard_bytes, poison);
    std::vector<uint8_t> want = poisoned;
    r.model(src.data() + src_offset, want.data() + guard_bytes + dst_offset);
    DeviceImage d_src(src), d_dst(poisoned);
    ASSERT_TRUE(d_src.ok() && d_dst.ok());
    const auto call = [&](const char* kernel) -> xpose_status_t {
      EXPECT_EQ(cudaSuccess, cudaMemcpy(d_dst.data(), poisoned.data(), poisoned.size(), cudaMemcpyHostToDevice));
      const void* s = d_src.data() + src_offset;
      void* d = d_dst.data() + guard_bytes + dst_offset;
      const xpose_status_t status =
          kernel ? xpose_permute_with(kernel, s, d, r.rank(), r.extents.data(), r.perm.data(), E, r.src_or_null(),
                                      r.dst_or_null(), nullptr)
                 : xpose_permute(s, d, r.rank(), r.extents.data(), r.perm.data(), E, r.src_or_null(), r.dst_or_null(),
                                 nullptr);
      EXPECT_EQ(cudaSuccess, cudaDeviceSynchronize());
      return status;
    };
    const xpose_status_t status = call(nullptr);
    ASSERT_EQ(XPOSE_SUCCESS, status) << xpose_last_error();
    int64_t diff = first_difference(d_dst.read(), want);
    ASSERT_EQ(-1, diff) << "automatic choice: first wrong byte " << diff;

    bool served_by[2] = {false, false};
    for (int k = 0; k < 2; ++k) {
      const char* name = k == 0 ? "permute_tiled" : "permute_rows";
      const xpose_status_t named = call(name);
      if (named == XPOSE_ERROR_NOT_SUPPORTED) {
        EXPECT_EQ(-1, first_difference(d_dst.read(), poisoned)) << name << " refused but wrote to dst";
        continue;
      }
      ASSERT_EQ(XPOSE_SUCCESS, named) << name << ": " << xpose_last_error();
      served_by[k] = true;
      diff = first_difference(d_dst.read(), want);
      ASSERT_EQ(-1, diff) << name << ": first wrong byte " << diff;
    }
    ASSERT_NE(served_by[0], served_by[1]) << "exactly one N-D kernel serves each permutation";
    (served_by[0] ? tiled : rows)++;
  }
  EXPECT_GT(tiled, 100);
  EXPECT_GT(rows, 20);
}

// A named transpose engine serves only permutations that are batched 2-D transposes.
TEST(Permute, ANamedTransposeEngineRefusesOtherPermutations) {
  XPOSE_REQUIRE_GPU();
  const int64_t extents[4] = {3, 4, 5, 6};
  const int perm[4] = {3, 1, 0, 2};
  std::vector<uint8_t> poisoned(360 * 4, poison);
  DeviceImage d_src(std::vector<uint8_t>(360 * 4, 1)), d_dst(poisoned);
  ASSERT_TRUE(d_src.ok() && d_dst.ok());
  EXPECT_EQ(XPOSE_ERROR_NOT_SUPPORTED,
            xpose_permute_with("smem_padded", d_src.data(), d_dst.data(), 4, extents, perm, 4, nullptr, nullptr, nullptr));
  EXPECT_NE(std::string::npos, std::string(xpose_last_error()).find("permute_tiled")) << xpose_last_error();
  EXPECT_EQ(XPOSE_ERROR_INVALID_ARGUMENT,
            xpose_permute_with("permute_bogus", d_src.data(), d_dst.data(), 4, extents, perm, 4, nullptr, nullptr, nullptr));
  ASSERT_EQ(cudaSuccess, cudaDeviceSynchronize());
  EXPECT_EQ(-1, first_difference(d_dst.read(), poisoned));
}

}  // namespace
}  // namespace xpose::testing
