// In-place transposition on the GPU.
// Square matrices: one block a pair of tiles (ti, tj), ti <= tj, across the diagonal. It loads
// tile A at (tj, ti) and tile B at (ti, tj) into registers, stages both in shared memory, and
// writes each turned where the other was (a diagonal block turns its own tile): every load
// lands before the first store, and no other block touches either tile. Rows and bases
// 16-byte aligned move as 16-byte vectors on both sides through vec_swizzled's tile
// (engines/vec_tile.cuh); the rest element by element through a padded 32 x 32 tile. The
// launch folds the triangle of pairs into a rectangle (layout::fold_pair).
// Rectangular matrices whose sides share a factor g (layout/inplace.hpp): each of the a x b
// blocks of g x g is turned in place (by the same tile-pair kernels, blocks of a launch's z, or
// whole through shared memory where small), then move_units moves the rows of g elements (in
// pieces) along the cycles of their permutation. Each chain (a warp) claims a piece by setting
// its bit in the workspace's bitmap: a chain starting at piece p loads p, then claims it (a
// piece claimed before is left to its claimer); a chain carrying p's contents claims p's
// destination q, and if it wins loads q, stores what it carries there and carries q's on, and
// if it loses stores and stops (q's contents are already on their way). Every piece is loaded
// before it is overwritten and written exactly once, with no list of cycles; how loads, claims
// and stores are ordered without fences is said above move_units.
#include <cooperative_groups.h>

#include <algorithm>

#include "engines/common.cuh"
#include "engines/inplace/inplace.hpp"
#include "engines/vec_tile.cuh"
#include "layout/grid.hpp"
#include "layout/inplace.hpp"

namespace xpose::engines {
namespace {

// 16-byte elements on an 8-byte boundary (NumPy's complex128) move as two 8-byte words.
struct alignas(8) Words8x2 {
  uint2 lo, hi;
};
template <int E>
using InplaceElem = std::conditional_t<E == 16, Words8x2, Elem<E>>;

// The pair of this block: tile A's first element pa (rows r0.., columns c0..), B's pb, and how
// many rows of A (`far`) and columns (`near`) lie inside the block being turned.
struct PairRef {
  int64_t a, b;  // element offsets of A and B in the block
  int far, near;
  bool diagonal, valid;
};

// The g x g blocks a launch turns: block z of the launch (z0 + blockIdx.z overall) is block
// (z % per matrix) of matrix z / per matrix; rows ld elements apart.
struct Blocks {
  layout::InplaceShape s;  // s.c: the blocks' side; square matrices: s.c = n, one block
  int64_t per_matrix;      // s.a * s.b
  int64_t tiles;           // tiles a block side
  int64_t z0;

  __device__ int64_t origin() const {
    const int64_t z = z0 + blockIdx.z;
    return z / per_matrix * s.m * s.n + layout::block_origin(s, z % per_matrix);
  }
};

__device__ __forceinline__ PairRef block_pair(const Blocks& k, int tile) {
  const layout::TilePair p = layout::fold_pair(blockIdx.x, blockIdx.y, k.tiles);
  const int64_t r0 = p.tj * tile, c0 = p.ti * tile, side = k.s.c, ld = k.s.n;
  PairRef r;
  r.a = r0 * ld + c0, r.b = c0 * ld + r0;
  r.far = int(min(int64_t(tile), side - r0)), r.near = int(min(int64_t(tile), side - c0));
  r.diagonal = p.ti == p.tj, r.valid = p.valid;
  return r;
}

template <int E, bool Edge>
__device__ __forceinline__ void swap_vector_tiles(Elem<E>* m, int64_t n, const PairRef& p, Elem<E>* sa, Elem<E>* sb) {
  VecTileLoads<E> a, b;
  load_vec_tile<E, Edge>(m + p.a, n, p.far, p.near, a);
  if (!p.diagonal) load_vec_tile<E, Edge>(m + p.b, n, p.near, p.far, b);
  stage_vec_tile<E>(a, sa);
  if (!p.diagonal) stage_vec_tile<E>(b, sb);
  __syncthreads();
  store_vec_tile<E, Edge>(sa, m + p.b, n, p.far, p.near);
  if (!p.diagonal) store_vec_tile<E, Edge>(sb, m + p.a, n, p.near, p.far);
}

template <int E>
__global__ void __launch_bounds__(layout::VecTile<E>::threads) inplace_swap_vec_tiles(Elem<E>* data, Blocks k) {
  using V = layout::VecTile<E>;
  __shared__ Elem<E> sa[V::Layout::size], sb[V::Layout::size];
  const PairRef p = block_pair(k, V::tile);
  if (!p.valid) return;
  Elem<E>* const m = data + k.origin();
  if (p.far == V::tile)
    swap_vector_tiles<E, false>(m, k.s.n, p, sa, sb);
  else
    swap_vector_tiles<E, true>(m, k.s.n, p, sa, sb);
}

constexpr int kTile = 32, kRows = 8;  // the element path: a tile's side; a block's rows of threads

template <int E>
__global__ void __launch_bounds__(kTile* kRows) inplace_swap_tiles(InplaceElem<E>* data, Blocks k) {
  __shared__ InplaceElem<E> a[kTile][kTile + 1], b[kTile][kTile + 1];
  const PairRef p = block_pair(k, kTile);
  if (!p.valid) return;
  const int x = int(threadIdx.x);
  const int64_t n = k.s.n;
  InplaceElem<E>* const m = data + k.origin();
  InplaceElem<E>* const pa = m + p.a + x;  // A's row 0, this thread's column
  InplaceElem<E>* const pb = m + p.b + x;  // B's row 0
  for (int i = threadIdx.y; i < kTile; i += kRows) {
    if (i < p.far && x < p.near) a[i][x] = pa[i * n];
    if (!p.diagonal && i < p.near && x < p.far) b[i][x] = pb[i * n];
  }
  __syncthreads();
  for (int i = threadIdx.y; i < kTile; i += kRows) {
    if (i < p.near && x < p.far) pb[i * n] = a[x][i];  // B's place takes A's columns
    if (!p.diagonal && i < p.far && x < p.near) pa[i * n] = b[x][i];
  }
}

// move_units moves pieces (units cut into equal pieces that move with their unit, for more
// chains in flight). A chain, a warp (T threads), walks pieces in rounds (q_0 = where it stands,
// q_{j+1} = q_j's destination) of 2, 4, .. up to k pieces (chains that start on one short
// cycle would otherwise load much of it for nothing: fp32 8192x4096 loaded 2.3 pieces for each
// it moved at a fixed 8); a round ends early where the walk comes back to the chain's first
// piece. A round loads its pieces into the chain's shared slots, claims them,
// and then stores into each q_j what is the chain's to deliver there: the piece it carries into
// q_0, a won q_{j-1}'s contents into q_j. It carries the last piece's contents on if it won it,
// else stops: the walk is claimed ahead k pieces at a time, one load and one claim round trip
// a round. A round's words are spread over the chain's threads (word w of its piece j to
// thread (j vecs + w) mod T; the barrier before the claims shows each thread's loads to the
// others); the slots are a ring of k + 1, the carried piece's among them. A chain starts walks
// from its own range of pieces, skipping those already claimed.
namespace cg = cooperative_groups;
constexpr int T = 32;                // threads a chain: a warp (fewer measured no faster for small pieces)
constexpr int kMaxRound = 32;        // pieces a round at most (a claim mask of 32 bits)
constexpr int kFirstRound = 2;       // a walk's first round; each next one twice as long
constexpr int kWalkWords = kMaxRound + 4;  // a chain's positions, their count, where it goes on

struct UnitLaunchArgs {
  layout::UnitWalk walk;
  layout::FastDivmod words;  // a piece's words (vecs)
  uint32_t pieces, total;    // pieces a matrix, all
  int vecs, round;           // words a piece, pieces a round
  uint32_t zero;             // 0, which the compiler cannot know: see the stores
};

template <int V>
__device__ __forceinline__ void load_word(Elem<V>* to, const Elem<V>* from) {
  if constexpr (V >= 4) {  // asynchronous: every word of the round in flight at once
    const uint32_t at = uint32_t(__cvta_generic_to_shared(to));
    if constexpr (V == 16)
      asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(at), "l"(from) : "memory");
    else
      asm volatile("cp.async.ca.shared.global [%0], [%1], %2;" ::"r"(at), "l"(from), "n"(V) : "memory");
  } else {
    *to = __ldcg(from);
  }
}

// Ordering without fences (a fence a round cost more than the round's data: ERRBAR and an L1
// invalidation, 45% of the stall samples on fp32 8192x4096, H200): a piece is claimed only
// after its loads have landed in shared memory (cp.async.wait_all, or a register stored there),
// so no later store can reach them; and every store waits on the claims' results, which its
// predicate reads (the carried piece's store too, through `zero`), so none leaves before them.

template <int V>
__global__ void __launch_bounds__(256) inplace_move_units(Elem<V>* data, uint32_t* claimed, UnitLaunchArgs u) {
  using W = Elem<V>;
  extern __shared__ uint4 chain_smem[];
  const auto chain = cg::tiled_partition<T>(cg::this_thread_block());
  const int lane = int(chain.thread_rank()), slots = u.round + 1, vecs = u.vecs;
  const uint32_t in_block = threadIdx.x / T, chains_a_block = blockDim.x / T;
  uint32_t* const q = reinterpret_cast<uint32_t*>(chain_smem) + in_block * kWalkWords;  // [count] [next] at the end
  W* const ring = reinterpret_cast<W*>(reinterpret_cast<uint32_t*>(chain_smem) + chains_a_block * kWalkWords) +
                  int64_t(in_block) * slots * vecs;
  const uint32_t chains = gridDim.x * chains_a_block, per_chain = (u.total + chains - 1) / chains;
  const uint32_t begin = (blockIdx.x * chains_a_block + in_block) * per_chain;
  const uint32_t end = begin + per_chain < u.total ? begin + per_chain : u.total;
  for (uint32_t p0 = begin; p0 < end; ++p0) {
    // Starts taken (claimed by a walk) are skipped by the word of their bits, not one load each.
    uint32_t ahead = 0;  // one read for the chain: its threads must agree
    if (lane == 0) ahead = *reinterpret_cast<volatile uint32_t*>(claimed + (p0 >> 5)) >> (p0 & 31);
    ahead = chain.shfl(ahead, 0);
    if (ahead & 1) {
      p0 += (~ahead ? uint32_t(__ffs(~ahead)) - 1 : 32 - (p0 & 31)) - 1;
      continue;
    }
    const uint32_t first = p0 / u.pieces * u.pieces;  // p0's matrix's first piece
    uint32_t at = p0;
    int carried = 0;  // the carried piece's slot
    bool carrying = false;
    for (int k = min(kFirstRound, u.round);; k = min(2 * k, u.round)) {
      chain.sync();  // everyone is done with the last round's positions
      if (lane == 0) {
        int n = 0;
        for (uint32_t x = at;; x = first + u.walk.next(x - first)) {
          q[n++] = x;
          if (n >= k || (x == p0 && (carrying || n > 1))) {  // back at the start: ours, the end
            q[kMaxRound] = uint32_t(n), q[kMaxRound + 1] = first + u.walk.next(x - first);
            break;
          }
        }
      }
      chain.sync();
      const int n = int(q[kMaxRound]), items = n * vecs;
      // Item j vecs + w is word w of piece j: pieces of T words or more a piece at a time, smaller
      // ones item by item (a division each).
      if (vecs >= T) {
        for (int j = 0, slot = carried; j < n; ++j) {
          slot = slot + 1 == slots ? 0 : slot + 1;
          W* const to = ring + slot * vecs;
          const W* const from = data + int64_t(q[j]) * vecs;
          for (int w = (lane - j * vecs) & (T - 1); w < vecs; w += T) load_word<V>(to + w, from + w);
        }
      } else {
        for (int i = lane; i < items; i += T) {
          uint32_t w;
          const int j = int(u.words.divmod(uint32_t(i), &w)), slot = carried + 1 + j;
          load_word<V>(ring + (slot < slots ? slot : slot - slots) * vecs + w, data + int64_t(q[j]) * vecs + w);
        }
      }
      if constexpr (V >= 4) asm volatile("cp.async.wait_all;" ::: "memory");
      chain.sync();  // every thread's loads landed, before the claims and the other threads' stores
      uint32_t won = 0;
      for (int j = lane; j < n; j += T) {
        const uint32_t bit = 1u << (q[j] & 31);
        if (!(atomicOr(claimed + (q[j] >> 5), bit) & bit)) won |= 1u << j;
      }
#pragma unroll
      for (int o = T / 2; o > 0; o /= 2) won |= chain.shfl_xor(won, o);
      // Into q_j: the carried piece (j = 0), or piece j - 1.
      const auto delivers = [&](int j) { return j == 0 ? carrying && (won & u.zero) == 0 : (won >> (j - 1) & 1) != 0; };
      if (vecs >= T) {
        for (int j = 0, slot = carried; j < n; ++j, slot = slot + 1 == slots ? 0 : slot + 1)
          if (delivers(j)) {
            const W* const from = ring + slot * vecs;
            W* const to = data + int64_t(q[j]) * vecs;
            for (int w = (lane - j * vecs) & (T - 1); w < vecs; w += T) __stcg(to + w, from[w]);
          }
      } else {
        for (int i = lane; i < items; i += T) {
          uint32_t w;
          const int j = int(u.words.divmod(uint32_t(i), &w)), slot = carried + j;
          if (delivers(j)) __stcg(data + int64_t(q[j]) * vecs + w, ring[(slot < slots ? slot : slot - slots) * vecs + w]);
        }
      }
      if (!(won >> (n - 1) & 1)) break;
      carried = (carried + n) % slots, carrying = true, at = q[kMaxRound + 1];  // piece n - 1's contents
    }
  }
}

bool square(const InplaceProblem& t) { return t.rows == t.cols; }

// Blocks of a side under kSmallBlockSide that fit kSmallBlockSmem (u8 35 x 35 blocks took 3.6%
// of a copy through three tile-pair blocks each): a thread block turns `per` consecutive blocks
// (z order: matrix, A, B) through shared memory, every element loaded before the first is
// stored. The blocks' origins are found once; threads walk the elements row by row across the
// blocks, so blocks side by side read and write their rows together.
constexpr int64_t kSmallBlockSmem = 16 << 10, kSmallBlockSide = 64;

template <int E>
__global__ void __launch_bounds__(256) inplace_turn_small_blocks(InplaceElem<E>* data, layout::InplaceShape s,
                                                                 int64_t blocks, int per) {
  extern __shared__ uint4 small_words[];
  int64_t* const origin = reinterpret_cast<int64_t*>(small_words);                      // [per]
  InplaceElem<E>* const staged = reinterpret_cast<InplaceElem<E>*>(origin + per);  // [block][row][g + 1]
  const int g = int(s.c);
  const int64_t z0 = int64_t(blockIdx.x) * per, per_matrix = s.a * s.b;
  const int count = int(blocks - z0 < per ? blocks - z0 : per), across = count * g;  // a row across the blocks
  for (int zb = threadIdx.x; zb < count; zb += blockDim.x) {
    const int64_t z = z0 + zb;
    origin[zb] = z / per_matrix * s.m * s.n + layout::block_origin(s, z % per_matrix);
  }
  __syncthreads();
  for (int r = 0; r < g; ++r)
    for (int x = threadIdx.x; x < across; x += blockDim.x) {
      const int zb = x / g, c = x - zb * g;
      staged[(zb * g + r) * (g + 1) + c] = data[origin[zb] + r * s.n + c];
    }
  __syncthreads();
  for (int r = 0; r < g; ++r)
    for (int x = threadIdx.x; x < across; x += blockDim.x) {
      const int zb = x / g, c = x - zb * g;
      data[origin[zb] + r * s.n + c] = staged[(zb * g + c) * (g + 1) + r];
    }
}

bool small_blocks(const InplaceProblem& t) {  // a rectangle's blocks, each whole through shared memory
  const int64_t g = layout::inplace_shape(t.rows, t.cols).c;
  return !square(t) && g < kSmallBlockSide && g * (g + 1) * t.elem_bytes <= kSmallBlockSmem;
}

bool vectors(const InplaceProblem& t) {
  const layout::InplaceShape s = layout::inplace_shape(t.rows, t.cols);
  return reinterpret_cast<uintptr_t>(t.data) % 16 == 0 && t.cols * t.elem_bytes % 16 == 0 &&
         (s.b == 1 || s.c * t.elem_bytes % 16 == 0);  // blocks side by side start on 16 bytes
}

int tile_side(const InplaceProblem& t) {
  return vectors(t) ? with_elem_bytes(t.elem_bytes, [](auto e) { return layout::VecTile<decltype(e)::value>::tile; })
                    : kTile;
}

// The units' launch: units cut into pieces of up to kPieceBytes (the largest divisor of the
// unit's bytes that is, where it is kMinPieceBytes or more: whole units else), which depends on
// the layout alone, so the workspace query knows their number; V-byte words (the widest that
// divides a piece and data's address); rounds of about kRoundBytes; chains a block so that their
// slots fill at most kBlockSmem.
constexpr int64_t kMinUnitBytes = 16, kPieceBytes = 1024, kMinPieceBytes = 256, kRoundBytes = 8 << 10,
                  kBlockSmem = 48 << 10, kMaxUnitBytes = 96 << 10;

int64_t pieces_a_unit(int64_t unit_bytes) {
  if (unit_bytes <= kPieceBytes) return 1;
  for (int64_t piece = kPieceBytes; piece >= kMinPieceBytes; --piece)
    if (unit_bytes % piece == 0) return unit_bytes / piece;
  return 1;
}

struct UnitLaunch {
  UnitLaunchArgs args;
  int word = 1, chains = 1;  // V, chains (warps) a block
  int64_t piece_bytes = 0, total = 0;
  size_t smem() const {
    return size_t(chains) * (kWalkWords * sizeof(uint32_t) + size_t(args.round + 1) * size_t(piece_bytes));
  }
};

UnitLaunch unit_launch(const InplaceProblem& t) {
  const layout::InplaceShape s = layout::inplace_shape(t.rows, t.cols);
  const int64_t pieces = pieces_a_unit(s.c * t.elem_bytes);
  UnitLaunch u;
  u.piece_bytes = s.c * t.elem_bytes / pieces;
  u.total = layout::unit_count(s) * pieces * t.batch;
  const uintptr_t at = reinterpret_cast<uintptr_t>(t.data);
  while (u.word < 16 && u.piece_bytes % (2 * u.word) == 0 && at % (2 * u.word) == 0) u.word *= 2;
  const int64_t vecs = u.piece_bytes / u.word, round = std::clamp<int64_t>(kRoundBytes / u.piece_bytes, 1, kMaxRound);
  u.chains = int(std::clamp<int64_t>(kBlockSmem / (kWalkWords * 4 + (round + 1) * u.piece_bytes), 1, 256 / T));
  u.args.walk = layout::UnitWalk(s, uint32_t(pieces));
  u.args.pieces = uint32_t(layout::unit_count(s) * pieces), u.args.total = uint32_t(u.total);
  u.args.vecs = int(vecs), u.args.round = int(round), u.args.words = layout::FastDivmod(uint32_t(vecs));
  u.args.zero = 0;
  return u;
}

}  // namespace

const char* inplace_refusal(const InplaceProblem& t) {
  if (t.trivial()) return nullptr;
  const layout::InplaceShape s = layout::inplace_shape(t.rows, t.cols);
  if (!square(t)) {
    if (s.c * t.elem_bytes < kMinUnitBytes)
      return "rectangular matrices whose sides share a factor of fewer than 16 bytes (gcd(rows, cols) x elem_bytes) "
             "are not yet transposed in place on the GPU (the CPU path takes any)";
    if (s.c * t.elem_bytes > kMaxUnitBytes)
      return "rectangular matrices whose sides share a factor of more than 96 KiB (gcd(rows, cols) x elem_bytes) "
             "are not yet transposed in place on the GPU";
    if (layout::unit_count(s) * pieces_a_unit(s.c * t.elem_bytes) * t.batch >= (int64_t(1) << 32))
      return "rectangular matrices of 2^32 pieces of rows of gcd(rows, cols) elements or more are not yet transposed "
             "in place on the GPU";
  }
  const int64_t tiles = (s.c + tile_side(t) - 1) / tile_side(t);
  if (layout::fold_launch_rows(tiles) > layout::max_grid_yz)
    return "the matrix is too large for one launch's grid (more than 2^17 tiles a side)";
  return nullptr;
}

size_t inplace_workspace_bytes(const InplaceProblem& t) {
  if (t.trivial() || square(t)) return 0;
  return size_t((unit_launch(t).total + 31) / 32 * 4);  // a bit a piece
}

const char* inplace_path(const InplaceProblem& t) {
  return small_blocks(t) ? "small blocks" : vectors(t) ? "vectors" : "elements";
}

cudaError_t transpose_inplace(const InplaceProblem& t, void* workspace, int sm_count, cudaStream_t stream) {
  if (t.trivial()) return cudaSuccess;
  const layout::InplaceShape s = layout::inplace_shape(t.rows, t.cols);
  const int64_t tiles = (s.c + tile_side(t) - 1) / tile_side(t), blocks = s.a * s.b * t.batch;
  const cudaError_t turned = with_elem_bytes(t.elem_bytes, [&](auto e) {
    constexpr int E = decltype(e)::value;
    if (s.c == 1) return cudaSuccess;  // blocks of one element
    if (small_blocks(t)) {
      const int64_t block_bytes = s.c * (s.c + 1) * E, per = kSmallBlockSmem / block_bytes;
      inplace_turn_small_blocks<E><<<unsigned((blocks + per - 1) / per), 256, size_t(per * (block_bytes + 8)), stream>>>(
          static_cast<InplaceElem<E>*>(t.data), s, blocks, int(per));
      return cudaGetLastError();
    }
    for (int64_t z = 0; z < blocks; z += layout::max_grid_yz) {
      const Blocks k{s, s.a * s.b, tiles, z};
      const dim3 grid(unsigned(tiles + 1), unsigned(layout::fold_launch_rows(tiles)),
                      unsigned(std::min<int64_t>(layout::max_grid_yz, blocks - z)));
      if (vectors(t))
        inplace_swap_vec_tiles<E><<<grid, layout::VecTile<E>::threads, 0, stream>>>(static_cast<Elem<E>*>(t.data), k);
      else
        inplace_swap_tiles<E><<<grid, dim3(kTile, kRows), 0, stream>>>(static_cast<InplaceElem<E>*>(t.data), k);
      if (cudaError_t err = cudaGetLastError(); err != cudaSuccess) return err;
    }
    return cudaSuccess;
  });
  if (turned != cudaSuccess || square(t)) return turned;

  const UnitLaunch u = unit_launch(t);
  if (cudaError_t err = cudaMemsetAsync(workspace, 0, inplace_workspace_bytes(t), stream); err != cudaSuccess) return err;
  const int64_t per_sm = std::max<int64_t>(1, std::min<int64_t>(2048 / (u.chains * T), (220 << 10) / u.smem()));
  const int64_t grid = std::max<int64_t>(1, std::min<int64_t>(per_sm * sm_count, (u.total + u.chains - 1) / u.chains));
  return with_elem_bytes(u.word, [&](auto w) {
    constexpr int V = decltype(w)::value;
    const auto kernel = inplace_move_units<V>;
    if (u.smem() > size_t(kBlockSmem))
      if (cudaError_t err = cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(u.smem()));
          err != cudaSuccess)
        return err;
    kernel<<<unsigned(grid), unsigned(u.chains * T), u.smem(), stream>>>(static_cast<Elem<V>*>(t.data),
                                                                        static_cast<uint32_t*>(workspace), u.args);
    return cudaGetLastError();
  });
}

}  // namespace xpose::engines
