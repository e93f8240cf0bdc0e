// xpose_permute on the GPU: random permutations (rank 1-8, odd extents, every element size,
// dense, padded and broadcast src strides, padded dst strides, element-aligned pointers that
// are not 16-byte aligned), dst poisoned and guarded. A served call must write exactly what
// the element-by-element model writes, gaps and guard bands untouched; a refused one must
// write nothing.
#include <gtest/gtest.h>

#include <iterator>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "dispatch/registry.hpp"
#include "support/permutations.hpp"
#include "support/testing.hpp"
#include "xpose/xpose.h"

namespace xpose::testing {
namespace {

// Each random permutation several ways: the automatic choice; and each N-D kernel named (so
// that permutations the transpose engines take run through the N-D kernels too), where it
// must either write what the model writes or refuse and write nothing. Exactly one of
// permute_tiled and permute_rows serves each; permute_vec_tiled and permute_aligned_stores
// serve only tiled forms, permute_row_vectors only rows.
// `vectors`: draws of whole 16-byte vectors with 16-byte aligned bases (offset by 0 or 16
// bytes), which permute_vec_tiled serves; else element-aligned bases off 16 bytes half the time.
struct Served {
  int vec_tiled = 0, aligned_stores = 0, tiled = 0, rows = 0, row_vectors = 0;
};

Served check_random_permutations(int trials, int64_t max_elements, bool vectors) {
  const uint64_t seed = fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  Served served;
  for (int trial = 0; trial < trials && !::testing::Test::HasFailure(); ++trial) {
    const RandomPermutation r = draw_permutation(rng, max_elements, vectors);
    SCOPED_TRACE("trial " + std::to_string(trial) + ": " + r.text());
    const int64_t E = r.elem_bytes;
    const size_t unit = vectors ? 16 : size_t(E);
    const size_t src_offset = unit * (rng() % 2), dst_offset = unit * (rng() % 2);
    std::vector<uint8_t> src(src_offset + size_t(r.src_span_elements() * E));
    fill_random(src, rng());
    const size_t dst_bytes = size_t(r.dst_span_elements() * E);
    std::vector<uint8_t> poisoned(guard_bytes + dst_offset + dst_bytes + guard_bytes, poison);
    std::vector<uint8_t> want = poisoned;
    r.model(src.data() + src_offset, want.data() + guard_bytes + dst_offset);
    DeviceImage d_src(src), d_dst(poisoned);
    EXPECT_TRUE(d_src.ok() && d_dst.ok());
    if (!d_src.ok() || !d_dst.ok()) break;
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
    EXPECT_EQ(XPOSE_SUCCESS, status) << xpose_last_error();
    int64_t diff = first_difference(d_dst.read(), want);
    EXPECT_EQ(-1, diff) << "automatic choice: first wrong byte " << diff;

    std::set<std::string> by;  // the N-D engines that served it, named
    for (const detail::Engine* e : detail::engines(detail::Input::nd_form)) {
      const char* name = e->name;
      const xpose_status_t named = call(name);
      if (named == XPOSE_ERROR_NOT_SUPPORTED) {
        EXPECT_EQ(-1, first_difference(d_dst.read(), poisoned)) << name << " refused but wrote to dst";
        continue;
      }
      EXPECT_EQ(XPOSE_SUCCESS, named) << name << ": " << xpose_last_error();
      by.insert(name);
      diff = first_difference(d_dst.read(), want);
      EXPECT_EQ(-1, diff) << name << ": first wrong byte " << diff;
    }
    const auto served_by = [&](const char* name) { return by.count(name) == 1; };
    EXPECT_NE(served_by("permute_tiled"), served_by("permute_rows"))
        << "exactly one of permute_tiled and permute_rows serves each permutation";
    EXPECT_TRUE(!served_by("permute_vec_tiled") || served_by("permute_tiled"))
        << "permute_vec_tiled served a form permute_tiled does not";
    EXPECT_EQ(served_by("permute_vec_tiled"), served_by("permute_vec_regs"))
        << "the two vector kernels serve the same forms";
    EXPECT_TRUE(served_by("permute_packed")) << "permute_packed refused a permutation of these small sizes";
    EXPECT_TRUE(!served_by("permute_aligned_stores") || served_by("permute_tiled"))
        << "permute_aligned_stores served a form permute_tiled does not";
    EXPECT_TRUE(!served_by("permute_row_vectors") || served_by("permute_rows"))
        << "permute_row_vectors served a form permute_rows does not";
    served.vec_tiled += served_by("permute_vec_tiled");
    served.aligned_stores += served_by("permute_aligned_stores");
    served.tiled += served_by("permute_tiled");
    served.rows += served_by("permute_rows");
    served.row_vectors += served_by("permute_row_vectors");
  }
  return served;
}

TEST(Permute, EveryPermutationMatchesTheModel) {
  XPOSE_REQUIRE_GPU();
  const int n = trials(600);
  const Served served = check_random_permutations(n, 20000, false);
  EXPECT_GT(served.tiled, covered_floor(n, 600, 100));
  EXPECT_GT(served.aligned_stores, covered_floor(n, 600, 20));
  EXPECT_GT(served.rows, covered_floor(n, 600, 20));
  EXPECT_GT(served.row_vectors, covered_floor(n, 600, 10));
}

TEST(Permute, WholeVectorPermutationsMatchTheModel) {
  XPOSE_REQUIRE_GPU();
  const int n = trials(500);
  const Served served = check_random_permutations(n, 1 << 16, true);
  EXPECT_GT(served.vec_tiled, covered_floor(n, 500, 100));
  EXPECT_GT(served.rows, covered_floor(n, 500, 50));
}

// A permutation of a fixed shape, dense on both sides.
struct Shape {
  int64_t elem_bytes;
  std::vector<int64_t> extents;
  std::vector<int> perm;
};

// `shape` through a plan of the N-D kernel `kernel`, src and dst `src_offset` and `dst_offset`
// bytes past 16-byte aligned bases: the result checked against the model, the guard bands
// untouched; where `says` is given, the plan's explanation must contain it.
void check_shape(const Shape& shape, const char* kernel, size_t src_offset, size_t dst_offset, std::mt19937_64& rng,
                 const char* says = nullptr) {
  RandomPermutation r;
  r.elem_bytes = shape.elem_bytes;
  r.extents = shape.extents;
  r.perm = shape.perm;
  SCOPED_TRACE(r.text() + ", src " + std::to_string(src_offset) + " and dst " + std::to_string(dst_offset) +
               " bytes off 16");
  std::vector<uint8_t> src(src_offset + size_t(r.src_span_elements() * r.elem_bytes));
  fill_random(src, rng());
  const size_t dst_bytes = size_t(r.dst_span_elements() * r.elem_bytes);
  std::vector<uint8_t> poisoned(guard_bytes + dst_offset + dst_bytes + guard_bytes, poison);
  std::vector<uint8_t> want = poisoned;
  r.model(src.data() + src_offset, want.data() + guard_bytes + dst_offset);
  DeviceImage d_src(src), d_dst(poisoned);
  ASSERT_TRUE(d_src.ok() && d_dst.ok());
  const void* s = d_src.data() + src_offset;
  void* d = d_dst.data() + guard_bytes + dst_offset;
  xpose_plan_t plan = nullptr;
  ASSERT_EQ(XPOSE_SUCCESS, xpose_plan_permute(&plan, kernel, s, d, r.rank(), r.extents.data(), r.perm.data(),
                                              r.elem_bytes, nullptr, nullptr))
      << xpose_last_error();
  const std::string text = xpose_plan_explain(plan);
  if (says) EXPECT_NE(std::string::npos, text.find(says)) << text;
  EXPECT_EQ(XPOSE_SUCCESS, xpose_plan_execute(plan, s, d, nullptr)) << xpose_last_error();
  xpose_plan_destroy(plan);
  ASSERT_EQ(cudaSuccess, cudaDeviceSynchronize());
  const int64_t diff = first_difference(d_dst.read(), want);
  EXPECT_EQ(-1, diff) << "first wrong byte " << diff;
}

// permute_aligned_stores on shapes the random draws reach rarely: more than 65535 outer
// indices (a grid z of 2), 16-byte aligned rows (the vector staging) and not, rows fused with
// dst's next axis, columns with src's, both, and several blocks each way; every base aligned
// and one element off.
TEST(Permute, AlignedStoresOnItsEdgeShapes) {
  XPOSE_REQUIRE_GPU();
  const uint64_t seed = fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  const Shape shapes[] = {
      {1, {70000, 5, 7}, {0, 2, 1}},              // 70000 outer indices, nothing fused
      {4, {64, 36, 40}, {0, 2, 1}},               // 160-byte rows: the vector staging where the base allows
      {2, {16, 8, 127, 127}, {3, 1, 0, 2}},       // rows fused with dst's next axis
      {1, {64, 8, 127, 129}, {3, 1, 0, 2}},       // three column tiles, the last of one column
      {4, {8, 4, 16, 17, 65}, {4, 2, 0, 3, 1}},   // one axis continues both fastest axes
      {2, {4, 3, 5, 33, 40, 9}, {2, 4, 0, 5, 1, 3}},
      {8, {6, 300, 7, 131}, {3, 1, 2, 0}},
      {1, {225, 520, 130}, {2, 1, 0}},  // 2 row blocks by 529 column tiles: row blocks first
      {4, {161, 40000}, {1, 0}},        // 3 by 625
  };
  for (const Shape& shape : shapes)
    for (size_t offset : {size_t(0), size_t(shape.elem_bytes)})
      check_shape(shape, "permute_aligned_stores", offset, offset, rng);
}

// permute_packed's word stores (NdPacked::lines: permute_packed_lines) on byte shapes whose
// dst lines lie in src's rows: batched and nested deinterleaves, lines of one element a step
// and of several, two and three edge words a line, at every dst base modulo 4 and src bases
// off 16 bytes. Each plan must say it stores words.
TEST(Permute, PackedLinesOnTheirShapes) {
  XPOSE_REQUIRE_GPU();
  const uint64_t seed = fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  const Shape shapes[] = {
      {1, {30, 126, 63, 9}, {0, 3, 1, 2}},      // 9 channels out of batches of lines (249 bytes)
      {1, {4, 703, 5}, {0, 2, 1}},              // lines of 352 bytes cut from 703
      {1, {3, 1020, 3}, {0, 2, 1}},             // lines of 510 bytes: three edge words
      {1, {7, 3, 2, 499, 3}, {1, 2, 4, 0, 3}},  // 499 bytes: three edge words
      {1, {5, 33, 7, 259}, {2, 1, 0, 3}},       // lines one element a step (259 bytes)
  };
  for (const Shape& shape : shapes)
    for (size_t skew = 0; skew < 4; ++skew)
      check_shape(shape, "permute_packed", size_t(rng() % 8), skew, rng, "4-byte words along dst's lines");
}

// 16-byte elements on an 8-byte boundary (NumPy's alignment of complex128) on either side:
// served by the automatic choice as 8-byte pairs, through xpose_permute and xpose_transpose,
// each result checked against the model with the guard bands; a named transpose engine
// refuses and writes nothing.
TEST(Permute, SixteenByteElementsOnAnEightByteBoundary) {
  XPOSE_REQUIRE_GPU();
  const uint64_t seed = fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  const int n = trials(300);
  for (int trial = 0; trial < n && !::testing::Test::HasFailure(); ++trial) {
    const bool as_transpose = trial % 2;
    const RandomPermutation r = draw_sixteen_byte_case(rng, as_transpose, 300, 20000);
    SCOPED_TRACE("trial " + std::to_string(trial) + ": " + r.text());
    const size_t src_offset = 8 * (rng() % 3), dst_offset = src_offset % 16 ? 8 * (rng() % 2) : 8;
    std::vector<uint8_t> src(src_offset + size_t(r.src_span_elements() * 16));
    fill_random(src, rng());
    std::vector<uint8_t> poisoned(guard_bytes + dst_offset + size_t(r.dst_span_elements() * 16) + guard_bytes, poison);
    std::vector<uint8_t> want = poisoned;
    r.model(src.data() + src_offset, want.data() + guard_bytes + dst_offset);
    DeviceImage d_src(src), d_dst(poisoned);
    ASSERT_TRUE(d_src.ok() && d_dst.ok());
    const void* s = d_src.data() + src_offset;
    void* d = d_dst.data() + guard_bytes + dst_offset;
    xpose_status_t status;
    if (as_transpose) {
      const int64_t batch = r.extents[0], rows = r.extents[1], cols = r.extents[2];
      EXPECT_EQ(XPOSE_ERROR_NOT_SUPPORTED, xpose_transpose_with("smem", s, d, rows, cols, 16, r.src_strides[1],
                                                                r.dst_strides[1], batch, 0, 0, nullptr));
      EXPECT_NE(std::string::npos, std::string(xpose_last_error()).find("8-byte")) << xpose_last_error();
      ASSERT_EQ(cudaSuccess, cudaDeviceSynchronize());
      EXPECT_EQ(-1, first_difference(d_dst.read(), poisoned)) << "a refused call wrote to dst";
      status = xpose_transpose(s, d, rows, cols, 16, r.src_strides[1], r.dst_strides[1], batch, 0, 0, nullptr);
    } else {
      status = xpose_permute(s, d, r.rank(), r.extents.data(), r.perm.data(), 16, r.src_or_null(), r.dst_or_null(),
                             nullptr);
    }
    EXPECT_EQ(XPOSE_SUCCESS, status) << xpose_last_error();
    ASSERT_EQ(cudaSuccess, cudaDeviceSynchronize());
    const int64_t diff = first_difference(d_dst.read(), want);
    EXPECT_EQ(-1, diff) << "first wrong byte " << diff;
  }
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
