// The GPU sweep: every registered kernel (and the automatic choice) x every element
// size x the shape table, compared bit for bit with the CPU reference, with dst
// poisoned before each call and its guard bands and ld/stride gaps checked untouched.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "dispatch/registry.hpp"
#include "support/testing.hpp"

namespace xpose::testing {
namespace {

struct Case {
  const char* what;
  int64_t rows, cols, batch;
  int64_t ld_src_extra = 0, ld_dst_extra = 0;    // ld beyond the extent, in elements
  int64_t stride_src_extra = 0, stride_dst_extra = 0;
  int64_t src_offset = 0, dst_offset = 0;        // elements of misalignment
  int64_t stride_src = 0, stride_dst = 0;        // batch strides where set: batches that interleave
};

const std::vector<Case> cases = {
    {"1x1", 1, 1, 1},
    {"1xN", 1, 1000, 1},
    {"Nx1", 1000, 1, 1},
    {"2xN", 2, 777, 1},
    {"Nx2", 777, 2, 1},
    {"3xN", 3, 1001, 1},
    {"31x33", 31, 33, 1},
    {"32x32", 32, 32, 1},
    {"33x31", 33, 31, 1},
    {"63x65", 63, 65, 1},
    {"65x63", 65, 63, 1},
    {"64x64", 64, 64, 1},
    {"128x256 whole tiles", 128, 256, 1},
    {"1023x2049 odd", 1023, 2049, 1},
    {"2001x1999 odd", 2001, 1999, 1},
    {"ld > extent", 100, 200, 1, 3, 11},
    {"ld 16-element multiples", 70, 90, 1, 26, 10},
    {"batch 3", 33, 65, 3},
    {"batch 5 whole tiles", 64, 64, 5},
    {"batch with ld and stride gaps", 70, 90, 2, 26, 10, 16, 32},
    {"odd extents, 16-element pitches", 1001, 2999, 1, 9, 23},  // edge tiles the TMA kernels can address
    {"odd extents batched, 16-element pitches", 77, 45, 3, 3, 3},
    {"offset pointers", 129, 257, 1, 0, 0, 0, 0, 1, 3},
    {"offset pointers batched", 40, 50, 2, 1, 2, 3, 4, 5, 7},
    {"16-element src pitch, offset dst", 129, 250, 1, 6, 0, 0, 0, 0, 3},
    // cute_tma's whole-row boxes: both sides' rows whole 128-byte segments, odd segment
    // counts (the last tile's second segment lies outside), pitch and stride gaps
    {"whole 128-byte segments, odd counts, gaps", 192, 320, 2, 16, 48, 64, 128},
    {"whole 128-byte segments, odd counts", 160, 96, 1},
    {"whole 128-byte segments of bytes, odd counts, gaps", 384, 640, 2, 16, 48, 64, 128},  // aligned_stores' 16-byte loads, edge vector
    {"2xN whole skinny spans and a tail", 2, 4112 * 4 + 48, 1},  // 16-byte rows for every element size
    {"Nx2 whole skinny spans and a tail", 4112 * 4 + 48, 2, 1},
    {"3xN planar to packed", 3, 8224, 1},
    {"Nx3 packed to planar", 8224, 3, 1},
    {"3xN a tail of whole vectors and odd elements, 16-element pitch", 3, 4183, 1, 9, 0},  // skinny's span ends
    {"Nx3 the same de-interleaved", 4183, 3, 1, 0, 9},
    {"3xN batched, a tail of one byte vector", 3, 4112, 2},
    {"8xN", 8, 4160, 1},
    {"Nx8", 4160, 8, 1},
    {"5x9 both short", 5, 9, 1},
    {"2xN batched, skinny", 2, 4096, 3},
    {"Nx7 batched, skinny, src pitch gaps", 4096, 7, 2, 0, 0, 5, 0},
    {"2xN offset pointers, skinny shifted", 2, 4112, 1, 0, 0, 0, 0, 1, 3},
    {"3xN odd pitch, batched, offset pointers, skinny shifted", 3, 4113, 3, 2, 0, 0, 0, 1, 2},
    {"Nx5 odd pitch, batched, offset pointers, skinny shifted", 4113, 5, 3, 0, 3, 0, 0, 2, 1},
    {"8xN odd, two spans and a tail, skinny shifted", 8, 8243, 2, 1, 0},
    {"Nx8 odd, two spans and a tail, skinny shifted", 8243, 8, 2, 0, 1},
    {"7xN batch strides off 16 bytes, skinny shifted", 7, 4099, 3, 0, 0, 3, 0},
    {"9xN just past skinny", 9, 4112, 1},
    {"54xN short lines, whole spans and a tail", 54, 4112, 1},  // short_lines: interleave
    {"Nx43 short lines, whole spans and a tail", 4112, 43, 1},  // de-interleave
    {"19xN batched short lines", 19, 2064, 3},
    {"Nx13 batched short lines", 2064, 13, 3},
    {"16xN short lines at 128 bytes of fp64", 16, 4096, 1},
    {"Nx127 short lines, one span and a tail", 304, 127, 1},
    {"54xN short lines shifted, odd line pitch", 54, 4111, 1},
    {"Nx43 short lines shifted, odd line pitch", 4111, 43, 1},
    {"21xN batched short lines, odd src pitch, shifted", 21, 1024, 2, 3, 0},
    {"Nx21 batched short lines, odd dst pitch, shifted", 1024, 21, 2, 0, 5},
    {"32xN short lines, an even side", 32, 4112, 1},  // the staged run's groups padded
    {"Nx32 short lines, an even side", 4112, 32, 1},
    {"Nx48 batched short lines shifted by the dst base", 2064, 48, 2, 0, 0, 0, 0, 0, 5},
    {"tiny batch 13x11", 13, 11, 1000},  // tiny_batched: whole matrices per block, every element size
    {"tiny batch 32x32", 32, 32, 300},  // 2- and 4-byte: whole CuTe tiles (rule tile_batch)
    {"tiny batch of whole 16x16 tiles", 16, 16, 500},  // 8-byte: rule tile_batch
    {"tiny batch of whole 32x64 tiles", 32, 64, 200},
    {"tiny batch 17x60, last chunk short", 17, 60, 77},
    {"tiny batch 9x9, batch stride gaps", 9, 9, 50, 0, 0, 3, 0},  // not dense: the tile kernels
    {"tiny batch just past 4 KiB of fp32", 33, 32, 20},  // the choice's boundaries: tiny_batched or a tile
    {"tiny batch of whole 64x64 byte tiles", 64, 64, 6},
    {"tiny batch 33x100, 4-8 KiB at 2 bytes", 33, 100, 37},  // tiny_batched's 4-8 KiB matrices (2 a chunk)
    {"tiny batch 45x45, just under 8 KiB at 4 bytes", 45, 45, 23},
    {"tiny batch 45x46, past 8 KiB at 4 bytes", 45, 46, 9},
    {"2 MiB of halves", 1024, 1024, 1},         // halves on Hopper: vec_swizzled ...
    {"just past 2 MiB of halves", 1024, 1032, 1},  // ... then tma_pipeline
    // Pitches that address nothing, which resolve_transpose() replaces by packed ones.
    {"1xN, a src pitch that addresses nothing", 1, 1000, 1, int64_t(1) << 40, 0},
    {"Nx1, a dst pitch that addresses nothing", 1000, 1, 1, 0, int64_t(1) << 40},
    {"one matrix, batch strides that address nothing", 64, 128, 1, 0, 0, int64_t(1) << 61, int64_t(1) << 58},
    {"1xN batched, the default batch stride from a src pitch that addresses nothing", 1, 1000, 3, 24, 0},
    {"Nx1 batched, the default batch stride from a dst pitch that addresses nothing", 1000, 1, 3, 0, 40},
    {"rows past grid y limit", 2100000, 3, 1},
    {"batch past grid z limit", 2, 3, 70000},
    // Batches whose matrices interleave (the automatic choice takes the N-D table's kernels).
    {"batch interleaved in src rows", 37, 5, 11, 75, 0, 0, 0, 0, 0, 7, 0},
    {"batch interleaved on both sides", 300, 7, 9, 56, 2400, 0, 0, 0, 0, 7, 300},
    {"batch interleaved in dst rows, offset pointers", 6, 1500, 4, 0, 24, 0, 0, 3, 1, 0, 7},
};

struct Param {
  std::string kernel;  // empty: the automatic choice
  int elem_bytes;
};

std::vector<Param> params() {
  std::vector<Param> out;
  std::vector<std::string> names = {""};
  for (const detail::Engine* e : detail::engines(detail::Input::transpose)) names.push_back(e->name);
  for (const auto& name : names)
    for (int e : {1, 2, 4, 8, 16}) out.push_back({name, e});
  return out;
}

class Sweep : public ::testing::TestWithParam<Param> {};

// Runs one case; returns false when the kernel declined it (NOT_SUPPORTED).
bool run_case(const Param& param, const Case& c, uint64_t seed) {
  detail::Args args;
  args.rows = c.rows;
  args.cols = c.cols;
  args.elem_bytes = param.elem_bytes;
  args.batch = c.batch;
  args.ld_src = c.ld_src_extra ? c.cols + c.ld_src_extra : 0;
  args.ld_dst = c.ld_dst_extra ? c.rows + c.ld_dst_extra : 0;
  if (c.stride_src_extra) args.stride_src = c.rows * (c.cols + c.ld_src_extra) + c.stride_src_extra;
  if (c.stride_dst_extra) args.stride_dst = c.cols * (c.rows + c.ld_dst_extra) + c.stride_dst_extra;
  if (c.stride_src) args.stride_src = c.stride_src;
  if (c.stride_dst) args.stride_dst = c.stride_dst;
  Images im;
  std::string why;
  EXPECT_TRUE(make_images(args, c.src_offset, c.dst_offset, seed, &im, &why)) << why;
  DeviceImage src(im.src), dst(im.dst);
  EXPECT_TRUE(src.ok() && dst.ok()) << "cudaMalloc/cudaMemcpy failed";
  if (!src.ok() || !dst.ok()) return true;
  const detail::Problem& p = im.problem;
  const void* s = src.data() + im.src_offset;
  void* d = dst.data() + im.dst_offset;
  const xpose_status_t status =
      param.kernel.empty()
          ? xpose_transpose(s, d, p.rows, p.cols, p.elem_bytes, args.ld_src, args.ld_dst, p.batch, args.stride_src,
                            args.stride_dst, nullptr)
          : xpose_transpose_with(param.kernel.c_str(), s, d, p.rows, p.cols, p.elem_bytes, args.ld_src, args.ld_dst,
                                 p.batch, args.stride_src, args.stride_dst, nullptr);
  EXPECT_EQ(cudaSuccess, cudaDeviceSynchronize());
  const std::vector<uint8_t> got = dst.read();
  if (status == XPOSE_ERROR_NOT_SUPPORTED && !param.kernel.empty()) {
    EXPECT_FALSE(std::string(xpose_last_error()).empty());
    EXPECT_EQ(-1, first_difference(got, im.dst)) << "a declined call wrote to dst";
    return false;
  }
  EXPECT_EQ(XPOSE_SUCCESS, status) << xpose_last_error();
  const int64_t diff = first_difference(got, im.expected());
  EXPECT_EQ(-1, diff) << "first wrong byte " << diff << ": " << (diff >= 0 ? locate(im, diff) : "");
  return true;
}

// Element sizes a kernel declines by design (each says why); every other pair must serve
// at least one case of the sweep.
bool declined_by_design(const Param& p) {
  // short_lines: a 16-byte short side past skinny's 8 elements is past its 128 bytes
  return (p.kernel == "cute_tma" || p.kernel == "aligned_stores" || p.kernel == "short_lines") && p.elem_bytes == 16;
}

TEST_P(Sweep, MatchesReferenceBitForBit) {
  XPOSE_REQUIRE_GPU();
  const Param& param = GetParam();
  int served = 0;
  for (const Case& c : cases) {
    const uint64_t seed = fresh_seed();
    SCOPED_TRACE(std::string("case ") + c.what + ", seed " + std::to_string(seed));
    served += run_case(param, c, seed);
    if (::testing::Test::HasFailure()) break;  // one clear failure beats a hundred echoes
  }
  if (declined_by_design(param))
    EXPECT_EQ(0, served) << "declined by design, yet served";
  else
    EXPECT_GT(served, 0) << "the kernel declined every case";
}

INSTANTIATE_TEST_SUITE_P(AllKernels, Sweep, ::testing::ValuesIn(params()),
                         [](const ::testing::TestParamInfo<Param>& info) {
                           return (info.param.kernel.empty() ? std::string("auto") : info.param.kernel) + "_" +
                                  std::to_string(info.param.elem_bytes) + "B";
                         });

// More than 2^31 elements: 64-bit index math under real load, on the vector path, the
// element-wise ones, the shifted stores, the CuTe TMA tile and the automatic choice (the TMA
// tile for bytes on Hopper); and a 2 x N byte matrix past 2^31 through the skinny kernel.
struct HugeCase {
  int64_t rows, cols;
  std::vector<const char*> kernels;
};

TEST(Huge, MoreThan2To31Elements) {
  XPOSE_REQUIRE_GPU();
  const std::vector<HugeCase> huge = {
      {32768, 65552, {"vec_swizzled", "smem_swizzled", "aligned_stores", "cute_tma", "auto"}},  // rows 16-byte aligned
      {32768, 65664, {"cute_tma", "auto"}},  // rows of whole 128-byte segments: cute_tma's 256x256 byte tiles
      {2, 1073741840, {"skinny", "auto"}},
  };
  for (const HugeCase& h : huge) {
    SCOPED_TRACE(std::to_string(h.rows) + "x" + std::to_string(h.cols));
    size_t free_bytes = 0, total = 0;
    ASSERT_EQ(cudaSuccess, cudaMemGetInfo(&free_bytes, &total));
    if (free_bytes < size_t(3) * h.rows * h.cols) GTEST_SKIP() << "needs 3 x 2.1 GB of free GPU memory";
    detail::Args args;
    args.rows = h.rows;
    args.cols = h.cols;
    args.elem_bytes = 1;
    Images im;
    std::string why;
    ASSERT_TRUE(make_images(args, 0, 0, fresh_seed(), &im, &why)) << why;
    const std::vector<uint8_t> want = im.expected();
    DeviceImage src(im.src), dst(im.dst);
    ASSERT_TRUE(src.ok() && dst.ok());
    for (const char* kernel : h.kernels) {
      if (detail::find_engine(kernel, detail::Input::transpose) == nullptr && std::string(kernel) != "auto")
        continue;  // a build without CuTe
      SCOPED_TRACE(kernel);
      ASSERT_EQ(cudaSuccess, cudaMemcpy(dst.data(), im.dst.data(), im.dst.size(), cudaMemcpyHostToDevice));
      uint8_t* d = dst.data() + im.dst_offset;
      const xpose_status_t status =
          std::string(kernel) == "auto"
              ? xpose_transpose(src.data(), d, h.rows, h.cols, 1, 0, 0, 1, 0, 0, nullptr)
              : xpose_transpose_with(kernel, src.data(), d, h.rows, h.cols, 1, 0, 0, 1, 0, 0, nullptr);
      ASSERT_EQ(XPOSE_SUCCESS, status) << xpose_last_error();
      ASSERT_EQ(cudaSuccess, cudaDeviceSynchronize());
      const int64_t diff = first_difference(dst.read(), want);
      EXPECT_EQ(-1, diff) << (diff >= 0 ? locate(im, diff) : "");
    }
  }
}

}  // namespace
}  // namespace xpose::testing
