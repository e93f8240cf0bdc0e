// The TMA kernels' host side: the 128-byte swizzle the tiles are indexed through, checked
// against the pattern the PTX ISA defines and against seed 003's formula; the tensor-map
// parameters for each side; and when the copy engine is refused, with the reason.
#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <set>
#include <type_traits>

#include "api/validate.hpp"
#include "dispatch/registry.hpp"
#include "dispatch/rules.hpp"
#include "engines/tma/tensor_map.hpp"
#include "layout/bank_model.hpp"
#include "layout/micro_block.hpp"
#include "layout/tma_tile.hpp"
#include "support/devices.hpp"

namespace xpose {
namespace {

// PTX ISA, tensor swizzling: in a 1024-byte aligned region of 128-byte rows, the 16-byte
// chunk k of row r lands at chunk k ^ (r % 8) of the same row.
int ptx_swizzle128_byte(int byte) {
  const int row = byte / 128, chunk = byte / 16 % 8;
  return row * 128 + (chunk ^ (row % 8)) * 16 + byte % 16;
}

template <int E>
void check_swizzle128() {
  SCOPED_TRACE("element size " + std::to_string(E));
  using T = layout::TmaTile<E>;
  using Tile = typename T::Swizzled128;
  EXPECT_EQ(128, T::edge * E);
  std::set<int> seen;
  for (int r = 0; r < T::edge; ++r)
    for (int c = 0; c < T::edge; ++c) {
      const int logical = (r * T::edge + c) * E;
      EXPECT_EQ(ptx_swizzle128_byte(logical), Tile::at(r, c) * E) << "r " << r << " c " << c;
      seen.insert(Tile::at(r, c));
      EXPECT_EQ(T::Plain::at(r, c) * E, logical);
    }
  EXPECT_EQ(size_t(T::edge * T::edge), seen.size());
}

TEST(TmaSwizzle, MatchesThePtxPatternForEveryElementSize) {
  check_swizzle128<1>();
  check_swizzle128<2>();
  check_swizzle128<4>();
  check_swizzle128<8>();
  check_swizzle128<16>();
}

TEST(TmaSwizzle, MatchesSeed003sColumnFormulaForFp32) {
  // Seed 003: i16 = (row * 32 + col) * 4 / 16; column ((i16 / 8) ^ (i16 % 8)) * 4 % 32 + col % 4.
  using Tile = layout::TmaTile<4>::Swizzled128;
  for (int r = 0; r < 32; ++r)
    for (int c = 0; c < 32; ++c) {
      const int i16 = (r * 32 + c) * 4 / 16;
      const int col = (((i16 / 8) ^ (i16 % 8)) * 4) % 32 + c % 4;
      EXPECT_EQ(r * 32 + col, Tile::at(r, c));
    }
}

detail::Problem problem(int64_t rows, int64_t cols, int64_t e, int64_t ld_src = 0, int64_t ld_dst = 0,
                        int64_t batch = 1, uintptr_t src = 1 << 20, uintptr_t dst = uintptr_t(1) << 44) {
  detail::Problem p;
  const detail::Result err = detail::resolve_transpose(detail::Args{reinterpret_cast<const void*>(src),
                                                         reinterpret_cast<void*>(dst), rows, cols, e, ld_src, ld_dst,
                                                         batch, 0, 0},
                                            &p);
  EXPECT_FALSE(err.failed()) << err.message;
  return p;
}

TEST(TensorMap, EachSideIsItsOwnRowMajorStack) {
  const detail::Problem p = problem(3000, 1000, 4, 1024, 3008, 5);
  const auto src = engines::tma::src_map(p, 32, true);
  EXPECT_EQ(4, src.elem_bytes);
  EXPECT_EQ(1000u, src.dims[0]);
  EXPECT_EQ(3000u, src.dims[1]);
  EXPECT_EQ(5u, src.dims[2]);
  EXPECT_EQ(1024u * 4, src.strides[0]);
  EXPECT_EQ(uint64_t(p.stride_src) * 4, src.strides[1]);
  EXPECT_EQ(32u, src.box[0]);
  EXPECT_EQ(32u, src.box[1]);
  EXPECT_EQ(1u, src.box[2]);
  EXPECT_TRUE(src.swizzle128);
  const auto dst = engines::tma::dst_map(p, 32, false);
  EXPECT_EQ(3000u, dst.dims[0]);
  EXPECT_EQ(1000u, dst.dims[1]);
  EXPECT_EQ(3008u * 4, dst.strides[0]);
  EXPECT_EQ(uint64_t(p.stride_dst) * 4, dst.strides[1]);
  EXPECT_FALSE(dst.swizzle128);
}

TEST(TensorMap, SixteenByteElementsTravelAsPairsAndSingleMatricesGetAValidPitch) {
  const detail::Problem p = problem(7, 9, 16);
  const auto src = engines::tma::src_map(p, 8, true);
  EXPECT_EQ(8, src.elem_bytes);
  EXPECT_EQ(18u, src.dims[0]);  // 9 elements of 16 bytes
  EXPECT_EQ(16u, src.box[0]);   // 8 elements of 16 bytes: one 128-byte row
  EXPECT_EQ(9u * 16, src.strides[0]);
  EXPECT_EQ(1u, src.dims[2]);
  EXPECT_EQ(0u, src.strides[1] % 16);
  EXPECT_GE(src.strides[1], 7u * 9 * 16);
  const auto odd = layout::map_shape(3, 5, 3, 1, 0, 2, 64, 64, true);  // 30 bytes: rounded up
  EXPECT_EQ(32u, odd.strides[1]);
}

TEST(TensorMap, RefusesWhatTheCopyEngineCannotAddress) {
  const auto unaddressable = [](const detail::Problem& p) { return detail::why(engines::tma::addressable(p), testing::h100); };
  EXPECT_EQ("", unaddressable(problem(30012, 29989, 4, 29992, 30016)));  // a partial src chunk reads exactly
  const char* whole_chunks = "TMA stores write whole 16-byte chunks: rows x element size must be a multiple of 16 bytes";
  EXPECT_EQ(whole_chunks, unaddressable(problem(30011, 29989, 4, 29992, 30012)));
  EXPECT_EQ(whole_chunks, unaddressable(problem(70, 64, 4, 0, 80)));
  EXPECT_EQ("", unaddressable(problem(72, 64, 4, 0, 80)));
  EXPECT_EQ("TMA needs ld_src and ld_dst to be multiples of 16 bytes", unaddressable(problem(30011, 29989, 4)));
  EXPECT_EQ("TMA needs ld_src and ld_dst to be multiples of 16 bytes", unaddressable(problem(16, 3, 1, 0, 16)));
  EXPECT_EQ("TMA needs src and dst aligned to 16 bytes",
            unaddressable(problem(64, 64, 4, 0, 0, 1, (1 << 20) + 8)));
  EXPECT_EQ("", unaddressable(problem(4, 64, 4, 0, 0, 3)));  // batch stride 1024 bytes
  EXPECT_EQ("TMA needs stride_src and stride_dst to be multiples of 16 bytes",
            [&] {
              detail::Problem p = problem(4, 64, 4, 0, 0, 3);
              p.stride_src += 1;
              return unaddressable(p);
            }());
  EXPECT_EQ("TMA addresses at most 2^31 - 1 elements along each dimension",
            unaddressable(problem(int64_t(1) << 31, 16, 1)));
  EXPECT_EQ("TMA addresses at most 2^31 - 1 elements along each dimension",
            unaddressable(problem(16, int64_t(1) << 30, 16)));  // 2^31 eight-byte halves
}

TEST(TensorMap, NamedTmaKernelsSayWhyTheyCannotServe) {
  using testing::a100;
  using testing::h100;
  detail::Choice c;
  for (const char* name : {"tma", "tma_swizzle128", "tma_batched", "tma_pipeline"}) {
    const detail::Engine* k = detail::find_engine(name, detail::Input::transpose);
    ASSERT_NE(nullptr, k) << name;
    EXPECT_FALSE(detail::choose_named(*k, problem(4096, 4096, 2), h100, &c).failed());
    EXPECT_EQ(std::string(name), c.plan.engine->name);
    detail::Result e = detail::choose_named(*k, problem(4096, 4096, 2), a100, &c);
    EXPECT_EQ(XPOSE_ERROR_NOT_SUPPORTED, e.status);
    EXPECT_EQ("the TMA kernels are built for compute capability 9.0 (XPOSE_TMA_ARCHITECTURES); the device is 8.0", e.message);
    e = detail::choose_named(*k, problem(31, 33, 4), h100, &c);
    EXPECT_EQ(XPOSE_ERROR_NOT_SUPPORTED, e.status);
    EXPECT_EQ("TMA needs ld_src and ld_dst to be multiples of 16 bytes", e.message);
    // A newer GPU runs no sm_90a code: refused until XPOSE_TMA_ARCHITECTURES lists it.
    e = detail::choose_named(*k, problem(4096, 4096, 2), testing::b200, &c);
    EXPECT_EQ("the TMA kernels are built for compute capability 9.0 (XPOSE_TMA_ARCHITECTURES); the device is 10.0",
              e.message);
  }
  // The automatic choice there takes the kernels built for every GPU.
  ASSERT_FALSE(detail::choose(problem(4096, 4096, 2), testing::b200, &c).failed());
  EXPECT_EQ(std::string::npos, std::string(c.plan.engine->name).find("tma")) << c.plan.engine->name;
}

}  // namespace
}  // namespace xpose

namespace xpose {
namespace {

// The pipelined kernel's turn, replayed warp by warp: word q of every thread's micro-block
// is one warp instruction on each side; 256 threads walk the micro-blocks in order.
template <int E, int Rows>
void check_pipe_tile() {
  SCOPED_TRACE("element size " + std::to_string(E));
  using T = layout::TmaPipeTile<E, Rows>;
  constexpr int threads = 256;
  ASSERT_EQ(0, T::micro_blocks % threads);
  std::set<std::pair<int, int>> blocks;
  std::set<int> read, written;
  for (int item = 0; item < T::micro_blocks / threads; ++item)
    for (int warp = 0; warp < threads / 32; ++warp)
      for (int q = 0; q < T::m; ++q) {
        std::vector<int64_t> loads, stores;
        for (int lane = 0; lane < 32; ++lane) {
          const auto mb = T::micro(item * threads + warp * 32 + lane);
          ASSERT_LT(mb.I, Rows / T::m);
          ASSERT_LT(mb.J, T::B);
          if (q == 0) blocks.insert({mb.I, mb.J});
          loads.push_back(int64_t(T::In::at(mb.I * T::m + q, mb.J * T::m)) * E);
          stores.push_back(int64_t(T::out_at(mb.J * T::m + q, mb.I * T::m)) * E);
          for (int k = 0; k < T::m; ++k) {  // the word's elements: a src row piece, a dst row piece
            read.insert(T::In::at(mb.I * T::m + q, mb.J * T::m + k));
            written.insert(T::out_at(mb.J * T::m + q, mb.I * T::m + k));
          }
        }
        EXPECT_EQ(1, layout::conflict_ways(loads, T::word_bytes)) << "load, item " << item << " warp " << warp;
        EXPECT_EQ(1, layout::conflict_ways(stores, T::word_bytes)) << "store, item " << item << " warp " << warp;
      }
  EXPECT_EQ(size_t(T::micro_blocks), blocks.size());
  EXPECT_EQ(size_t(T::size), read.size());
  EXPECT_EQ(size_t(T::size), written.size());
  EXPECT_EQ(T::size - 1, *written.rbegin());
  EXPECT_GE(T::word_bytes, 4);  // no sub-word shared-memory access
}

TEST(TmaPipeTile, EveryWarpIsConflictFreeAndEveryElementMovesOnce) {
  check_pipe_tile<1, 128>();
  check_pipe_tile<2, 128>();
  check_pipe_tile<4, 128>();
  check_pipe_tile<8, 128>();
  check_pipe_tile<16, 128>();
}

}  // namespace
}  // namespace xpose

namespace xpose {
namespace {

// The register turn of each micro-block size: column q of the input rows comes out as
// row q, for every element size, on fresh random bytes.
template <int E, int M, class Word>
void check_micro_transpose(std::mt19937_64& rng) {
  SCOPED_TRACE("element size " + std::to_string(E));
  static_assert(sizeof(Word) == size_t(M) * E, "a word is one row of the micro-block");
  Word a[M], b[M];
  unsigned char in[M][M * E], out[M][M * E];
  for (auto& row : in)
    for (auto& byte : row) byte = static_cast<unsigned char>(rng());
  std::memcpy(a, in, sizeof a);
  std::memset(b, 0xA5, sizeof b);
  layout::transpose_micro(a, b);
  std::memcpy(out, b, sizeof b);
  for (int q = 0; q < M; ++q)
    for (int p = 0; p < M; ++p)
      EXPECT_EQ(0, std::memcmp(&out[q][p * E], &in[p][q * E], E)) << "out row " << q << " element " << p;
}

TEST(MicroBlock, RegisterTransposeForEveryElementSize) {
  std::mt19937_64 rng(std::random_device{}());
  for (int round = 0; round < 16; ++round) {
    check_micro_transpose<1, 4, uint32_t>(rng);
    check_micro_transpose<2, 4, uint2>(rng);
    check_micro_transpose<4, 4, uint4>(rng);
    check_micro_transpose<8, 2, uint4>(rng);
    check_micro_transpose<16, 1, uint4>(rng);
  }
  // The kernel's word types are the ones checked here.
  EXPECT_TRUE((std::is_same_v<layout::WordOf<layout::TmaPipeTile<1, 128>::word_bytes>::type, uint32_t>));
  EXPECT_TRUE((std::is_same_v<layout::WordOf<layout::TmaPipeTile<2, 128>::word_bytes>::type, uint2>));
  EXPECT_EQ(4, (layout::TmaPipeTile<4, 128>::m));
  EXPECT_EQ(2, (layout::TmaPipeTile<8, 128>::m));
  EXPECT_EQ(1, (layout::TmaPipeTile<16, 128>::m));
}

}  // namespace
}  // namespace xpose
