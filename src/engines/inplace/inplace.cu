// In-place transposition on the GPU.
// Square matrices: one block a pair of tiles (ti, tj), ti <= tj, across the diagonal. It loads
// tile A at (tj, ti) and tile B at (ti, tj) into registers, stages both in shared memory, and
// writes each turned where the other was (a diagonal block turns its own tile): every load
// lands before the first store, and no other block touches either tile. Rows and bases
// 16-byte aligned move as 16-byte vectors on both sides: 1- and 2-byte elements through packed
// tiles of 128-byte rows (K x K elements turned in registers, staged as words:
// layout::PackedPairTile), wider ones through vec_swizzled's tile (engines/vec_tile.cuh). Off
// 16 bytes, 1- and 2-byte elements take the packed tiles moved as the aligned 16-byte words
// around their rows (ShiftedTiles), wider ones element by element through a padded tile of
// 128-byte rows or more (ElemTile). The launch folds the triangle of pairs into a rectangle
// (layout::fold_pair).
// Rectangular matrices whose sides share a factor g (layout/inplace.hpp): each of the a x b
// blocks of g x g is turned in place (by the same tile-pair kernels, blocks of a launch's z, or
// whole through shared memory where small), then move_units moves the rows of g elements (in
// pieces) along the cycles of their permutation, by the chains of chains.cuh. Sides sharing
// fewer than 16 bytes: c2r.cu; a short side of up to 384-6144 elements (layout::narrow_takes):
// narrow.cu; inplace.hpp lists the paths.
#include <algorithm>

#include "engines/common.cuh"
#include "engines/inplace/chains.cuh"
#include "engines/inplace/elem.cuh"
#include "engines/inplace/inplace.hpp"
#include "engines/vec_tile.cuh"
#include "layout/grid.hpp"
#include "layout/inplace.hpp"

namespace xpose::engines {
namespace {

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

// 1- and 2-byte elements on 16 bytes: K rows of a 16-byte chunk a thread, turned K x K in
// registers and staged as words of a column's K rows (layout::PackedPairTile); a turned row's
// chunk is one 16-byte shared load. A tile the matrix edge cuts loads and stores chunks the edge
// cuts element by element, and none wholly outside.
template <int E>
struct PackedLoads {
  uint4 rows[layout::PackedPairTile<E>::K];
};

template <int E, bool Edge>
__device__ __forceinline__ void load_packed(const Elem<E>* src, int64_t ld, int rows, int cols, PackedLoads<E>& in) {
  using T = layout::PackedPairTile<E>;
  const auto e = T::load_coord(int(threadIdx.x));
#pragma unroll
  for (int i = 0; i < T::K; ++i) {
    const Elem<E>* from = src + (e.r + i) * ld + e.c;
    if (!Edge || (e.r + i < rows && e.c + T::vec <= cols)) {
      in.rows[i] = *reinterpret_cast<const uint4*>(from);
    } else {
      Vector<E> v;
      v.bits = make_uint4(0, 0, 0, 0);
      if (e.r + i < rows)
#pragma unroll
        for (int k = 0; k < T::vec; ++k)
          if (e.c + k < cols) v.e[k] = from[k];
      in.rows[i] = v.bits;
    }
  }
}

__device__ __forceinline__ uint32_t word_of(const uint4& v, int j) { return j == 0 ? v.x : j == 1 ? v.y : j == 2 ? v.z : v.w; }

template <int E>
__device__ __forceinline__ void stage_packed(const PackedLoads<E>& in, uint32_t* smem) {
  using T = layout::PackedPairTile<E>;
  const auto e = T::load_coord(int(threadIdx.x));
  const int g = e.r / T::K;
#pragma unroll
  for (int j = 0; j < 4; ++j) {  // word j of each row: columns e.c + K j .. e.c + K j + K - 1
    uint32_t y[T::K];            // y[k]: column e.c + K j + k, rows e.r .. e.r + K - 1
    if constexpr (T::K == 4) {
      const uint32_t x0 = word_of(in.rows[0], j), x1 = word_of(in.rows[1], j);
      const uint32_t x2 = word_of(in.rows[2], j), x3 = word_of(in.rows[3], j);
      const uint32_t t0 = __byte_perm(x0, x1, 0x5140), t1 = __byte_perm(x0, x1, 0x7362);
      const uint32_t t2 = __byte_perm(x2, x3, 0x5140), t3 = __byte_perm(x2, x3, 0x7362);
      y[0] = __byte_perm(t0, t2, 0x5410), y[1] = __byte_perm(t0, t2, 0x7632);
      y[2] = __byte_perm(t1, t3, 0x5410), y[3] = __byte_perm(t1, t3, 0x7632);
    } else {
      const uint32_t x0 = word_of(in.rows[0], j), x1 = word_of(in.rows[1], j);
      y[0] = __byte_perm(x0, x1, 0x5410), y[1] = __byte_perm(x0, x1, 0x7632);
    }
#pragma unroll
    for (int k = 0; k < T::K; ++k) smem[T::at(e.c + T::K * j + k, g)] = y[k];
  }
}

// The staged tile's columns as rows at dst (ld elements apart); rows x cols as loaded.
template <int E, bool Edge>
__device__ __forceinline__ void store_packed(const uint32_t* smem, Elem<E>* dst, int64_t ld, int rows, int cols) {
  using T = layout::PackedPairTile<E>;
#pragma unroll
  for (int s = 0; s < T::stores; ++s) {
    const auto e = T::store_coord(s * T::threads + int(threadIdx.x));  // dst row e.c, elements e.r ..
    const uint4 out = *reinterpret_cast<const uint4*>(smem + T::at(e.c, e.r / T::K));
    Elem<E>* to = dst + e.c * ld + e.r;
    if (!Edge || (e.c < cols && e.r + T::vec <= rows)) {
      __stwb(reinterpret_cast<uint4*>(to), out);
    } else if (e.c < cols) {
      Vector<E> v;
      v.bits = out;
#pragma unroll
      for (int k = 0; k < T::vec; ++k)
        if (e.r + k < rows) to[k] = v.e[k];
    }
  }
}

// The tile pairs' two vector paths, each a tile's loads (registers), and how it loads, stages
// and stores one: vec_swizzled's tile (engines/vec_tile.cuh) and the packed one above.
template <int E>
struct VectorTiles {
  static constexpr int elem = E;
  using Loads = VecTileLoads<E>;
  using Staged = Elem<E>;
  static constexpr int side = layout::VecTile<E>::tile, staged = layout::VecTile<E>::Layout::size;
  template <bool Edge>
  __device__ void load(const Elem<E>* src, int64_t ld, int rows, int cols, Loads& in) const {
    load_vec_tile<E, Edge>(src, ld, rows, cols, in);
  }
  __device__ void stage(const Loads& in, Staged* smem) const { stage_vec_tile<E>(in, smem); }
  template <bool Edge>
  __device__ void store(const Staged* smem, Elem<E>* dst, int64_t ld, int rows, int cols) const {
    store_vec_tile<E, Edge>(smem, dst, ld, rows, cols);
  }
};

template <int E>
struct PackedTiles {
  static constexpr int elem = E;
  using Loads = PackedLoads<E>;
  using Staged = uint32_t;
  static constexpr int side = layout::PackedPairTile<E>::side, staged = layout::PackedPairTile<E>::size;
  template <bool Edge>
  __device__ void load(const Elem<E>* src, int64_t ld, int rows, int cols, Loads& in) const {
    load_packed<E, Edge>(src, ld, rows, cols, in);
  }
  __device__ void stage(const Loads& in, Staged* smem) const { stage_packed<E>(in, smem); }
  template <bool Edge>
  __device__ void store(const Staged* smem, Elem<E>* dst, int64_t ld, int rows, int cols) const {
    store_packed<E, Edge>(smem, dst, ld, rows, cols);
  }
};

// 1- and 2-byte elements whose rows or base are off 16 bytes: the packed tile, its chunks read
// as the aligned 16-byte words around them and written as the aligned words they cover. Lane j
// of a row's 8 (chunk j) loads the aligned word holding the chunk's first byte and takes the
// next from lane j + 1 (lane 7 loads it), shifting the chunk out of the two; storing a turned
// row, lane j > 0 writes aligned word j (chunk j - 1's last bytes from lane j - 1, chunk j's
// first), and the bytes the row has of the words it shares with its neighbours (0 and 8) go two
// a lane (predicated 8/4/2/1-byte stores had cost u8 8193^2 4.8 times the aligned tile's
// instructions, 18 of 32 threads a warp active; H200, Nsight Compute). Words are read only within the
// matrices' bytes [low, high); bytes read outside the tile are dropped, and only the tile's are
// written (a tile the edge cuts: rows past it are not read, bytes past it not written).
template <int E>
struct ShiftedTiles : PackedTiles<E> {
  using T = layout::PackedPairTile<E>;
  using Loads = PackedLoads<E>;
  const unsigned char *low, *high;
  __device__ static uint4 shuffle_down8(const uint4& v) {  // lane + 1's of a row's 8 (lane 7: its own)
    return make_uint4(__shfl_down_sync(~0u, v.x, 1, 8), __shfl_down_sync(~0u, v.y, 1, 8),
                      __shfl_down_sync(~0u, v.z, 1, 8), __shfl_down_sync(~0u, v.w, 1, 8));
  }
  __device__ static uint4 shuffle_up8(const uint4& v) {  // lane - 1's (lane 0: its own)
    return make_uint4(__shfl_up_sync(~0u, v.x, 1, 8), __shfl_up_sync(~0u, v.y, 1, 8), __shfl_up_sync(~0u, v.z, 1, 8),
                      __shfl_up_sync(~0u, v.w, 1, 8));
  }
  // A tile's loads as issued: each row's aligned word and, for lane 7, the word after it.
  struct Raw {
    uint4 first[T::K], after[T::K];
    uint32_t shifts;  // 4 bits a row
  };
  // Every load of the tile predicated, none behind a branch or a use, so that they are in flight
  // together (u8 8193^2 50 -> 54% of a copy, 5fc55c4: 114 registers against 60); then the words the
  // matrices' ends cut (rare), a byte at a time.
  template <bool Edge>
  __device__ void issue(const Elem<E>* src, int64_t ld, int rows, Raw& raw) const {
    const auto e = T::load_coord(int(threadIdx.x));
    const bool last = threadIdx.x % T::chunks_a_row == T::chunks_a_row - 1;
    const auto inside = [&](const unsigned char* w) { return w >= low && w + 16 <= high; };
    const unsigned char* word[T::K];
    bool live[T::K], more[T::K];
    raw.shifts = 0;
#pragma unroll
    for (int i = 0; i < T::K; ++i) {
      const uintptr_t at = reinterpret_cast<uintptr_t>(src + (e.r + i) * ld + e.c);
      word[i] = reinterpret_cast<const unsigned char*>(at & ~uintptr_t(15));
      live[i] = !Edge || e.r + i < rows;  // one row a lane's 8 (the lanes of one row agree)
      more[i] = last && live[i] && (at & 15);
      raw.shifts |= uint32_t(at & 15) << (4 * i);
      raw.first[i] = live[i] && inside(word[i]) ? __ldcg(reinterpret_cast<const uint4*>(word[i])) : uint4{};
      raw.after[i] = more[i] && inside(word[i] + 16) ? __ldcg(reinterpret_cast<const uint4*>(word[i] + 16)) : uint4{};
    }
#pragma unroll
    for (int i = 0; i < T::K; ++i) {
      if (live[i] && !inside(word[i])) raw.first[i] = load_within(word[i], low, high);
      if (more[i] && !inside(word[i] + 16)) raw.after[i] = load_within(word[i] + 16, low, high);
    }
  }
  // Each chunk shifted out of its lane's word and the next (lane j + 1's, or lane 7's after).
  __device__ static void chunks(const Raw& raw, PackedLoads<E>& in) {
    const bool last = threadIdx.x % T::chunks_a_row == T::chunks_a_row - 1;
#pragma unroll
    for (int i = 0; i < T::K; ++i) {
      const int shift = int(raw.shifts >> (4 * i)) & 15;
      uint4 next = shuffle_down8(raw.first[i]);  // every lane, the last too (skipping it hangs the warp)
      if (last) next = raw.after[i];
      in.rows[i] = shift ? shift_bytes(raw.first[i], next, shift) : raw.first[i];
    }
  }
  template <bool Edge>
  __device__ void load(const Elem<E>* src, int64_t ld, int rows, int, Loads& in) const {
    Raw raw;
    issue<Edge>(src, ld, rows, raw);
    chunks(raw, in);
  }
  template <bool Edge>
  __device__ void store(const uint32_t* smem, Elem<E>* dst, int64_t ld, int rows, int cols) const {
    const int bytes = Edge ? rows * E : T::side * E;  // of a turned row in the tile
    const int j = int(threadIdx.x) % T::chunks_a_row;
#pragma unroll
    for (int s = 0; s < T::stores; ++s) {
      const auto e = T::store_coord(s * T::threads + int(threadIdx.x));  // dst row e.c, chunk j
      const uint4 v = *reinterpret_cast<const uint4*>(smem + T::at(e.c, e.r / T::K));
      const uint4 before = shuffle_up8(v);
      unsigned char* const row = reinterpret_cast<unsigned char*>(dst + e.c * ld);
      const int shift = int(reinterpret_cast<uintptr_t>(row) & 15);
      const layout::ShiftedRow turned{shift, T::side * E};
      unsigned char* const word = row + turned.whole(j);  // aligned word j: chunk j - 1's last bytes, chunk j's first
      const uint4 out = shift ? shift_bytes(before, v, 16 - shift) : v;
      if constexpr (Edge) {
        if (e.c >= cols) continue;
        const int end = shift + bytes - 16 * j;  // the row's end, from word
        store_part(word, out, j == 0 ? shift : 0, min(16, end));
        if (j == T::chunks_a_row - 1 && end > 16) store_part(word + 16, shift_bytes(v, v, 16 - shift), 0, end - 16);
      } else {
        if (j > 0) __stcg(reinterpret_cast<uint4*>(word), out);
        // Words 0 and 8, which the row shares with its neighbours: its first 16 - shift bytes and
        // last shift bytes, two a lane, read from the staged tile (a word a column's 4 bytes).
#pragma unroll
        for (int b = 0; b < 2; b += E) {
          const int at = turned.shared(2 * j + b);  // a byte of the row
          const uint32_t w = smem[T::at(e.c, at / 4)] >> (8 * (at % 4));
          if constexpr (E == 1) row[at] = (unsigned char)w;
          else *reinterpret_cast<unsigned short*>(row + at) = (unsigned short)w;
        }
      }
    }
  }
};

template <class Path, bool Edge>
__device__ __forceinline__ void swap_tiles(const Path& path, Elem<Path::elem>* m, int64_t n, const PairRef& p,
                                           typename Path::Staged* sa, typename Path::Staged* sb) {
  typename Path::Loads a, b;
  path.template load<Edge>(m + p.a, n, p.far, p.near, a);
  if (!p.diagonal) path.template load<Edge>(m + p.b, n, p.near, p.far, b);
  path.stage(a, sa);
  if (!p.diagonal) path.stage(b, sb);
  __syncthreads();
  path.template store<Edge>(sa, m + p.b, n, p.far, p.near);  // B's place takes A's columns
  if (!p.diagonal) path.template store<Edge>(sb, m + p.a, n, p.near, p.far);
}

// This block's pair through `path`. A's rows (far) never outnumber its columns (near): tile A
// lies on or below the diagonal, so a whole A makes a whole pair.
template <class Path>
__device__ __forceinline__ void swap_pair(const Path& path, Elem<Path::elem>* data, const Blocks& k) {
  __shared__ typename Path::Staged sa[Path::staged], sb[Path::staged];
  const PairRef p = block_pair(k, Path::side);
  if (!p.valid) return;
  Elem<Path::elem>* const m = data + k.origin();
  if (p.far == Path::side)
    swap_tiles<Path, false>(path, m, k.s.n, p, sa, sb);
  else
    swap_tiles<Path, true>(path, m, k.s.n, p, sa, sb);
}

template <int E>
__global__ void __launch_bounds__(layout::VecTile<E>::threads) inplace_swap_vec_tiles(Elem<E>* data, Blocks k) {
  swap_pair(VectorTiles<E>{}, data, k);
}

template <int E>
__global__ void __launch_bounds__(layout::PackedPairTile<E>::threads) inplace_swap_packed(Elem<E>* data, Blocks k) {
  swap_pair(PackedTiles<E>{}, data, k);
}

// low, high: the matrices' bytes (words are read within them alone). Bytes at 3 blocks an SM (80
// registers and 8 bytes of spills, where 98 left 2): H200, u8 8193^2 54.5 -> 57-63% of a copy,
// 16383^2 52.8 -> 57.7, 12059^2 53.1 -> 58.0; 2-byte elements held to 4 blocks (64 registers)
// spilled and lost 2 points on fp16 8191^2, so they name no minimum (0: ptxas takes 58, 4 blocks;
// a minimum of 1 lets it take 76).
template <int E>
__global__ void __launch_bounds__(layout::PackedPairTile<E>::threads, E == 1 ? 3 : 0)
    inplace_swap_shifted(Elem<E>* data, Blocks k, const unsigned char* low, const unsigned char* high) {
  ShiftedTiles<E> path;
  path.low = low, path.high = high;
  swap_pair(path, data, k);
}

// The element path's tile (4-byte elements and wider off 16 bytes): rows of 128 bytes or more
// (fp32's 256-byte rows halve the share of sectors its tiles' edges cut), 8 rows of threads, rows
// padded by an element.
template <int E>
struct ElemTile {
  static_assert(E >= 4, "1- and 2-byte elements take the shifted packed tiles");
  static constexpr int side = E == 4 ? 64 : 32, pad = 1, rows = 8;
  static constexpr int threads = side * rows;
};

template <int E>
__global__ void __launch_bounds__(ElemTile<E>::threads) inplace_swap_tiles(InplaceElem<E>* data, Blocks k) {
  using T = ElemTile<E>;
  __shared__ InplaceElem<E> a[T::side][T::side + T::pad], b[T::side][T::side + T::pad];
  const PairRef p = block_pair(k, T::side);
  if (!p.valid) return;
  const int x = int(threadIdx.x);
  const int64_t n = k.s.n;
  InplaceElem<E>* const m = data + k.origin();
  InplaceElem<E>* const pa = m + p.a + x;  // A's row 0, this thread's column
  InplaceElem<E>* const pb = m + p.b + x;  // B's row 0
#pragma unroll
  for (int i = threadIdx.y; i < T::side; i += T::rows) {
    if (i < p.far && x < p.near) a[i][x] = pa[i * n];
    if (!p.diagonal && i < p.near && x < p.far) b[i][x] = pb[i * n];
  }
  __syncthreads();
#pragma unroll
  for (int i = threadIdx.y; i < T::side; i += T::rows) {
    if (i < p.near && x < p.far) pb[i * n] = a[x][i];  // B's place takes A's columns
    if (!p.diagonal && i < p.far && x < p.near) pa[i * n] = b[x][i];
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
  return with_elem_bytes(t.elem_bytes, [&](auto e) {
    constexpr int E = decltype(e)::value;
    if constexpr (E <= 2)
      return layout::PackedPairTile<E>::side;  // packed tiles, shifted where off 16 bytes
    else
      return vectors(t) ? layout::VecTile<E>::tile : ElemTile<E>::side;
  });
}

// The units' pieces: units cut into pieces of up to kPieceBytes (the largest divisor of the
// unit's bytes that is, where it is kMinPieceBytes or more: whole units else), which depends on
// the layout alone, so the workspace query knows their number; V-byte words (the widest that
// divides a piece and data's address).
constexpr int64_t kPieceBytes = 1024, kMinPieceBytes = 256, kMaxUnitBytes = 96 << 10;

int64_t pieces_a_unit(int64_t unit_bytes) {
  if (unit_bytes <= kPieceBytes) return 1;
  for (int64_t piece = kPieceBytes; piece >= kMinPieceBytes; --piece)
    if (unit_bytes % piece == 0) return unit_bytes / piece;
  return 1;
}

int64_t unit_pieces(const InplaceProblem& t) {  // all of the batch's
  const layout::InplaceShape s = layout::inplace_shape(t.rows, t.cols);
  return layout::unit_count(s) * pieces_a_unit(s.c * t.elem_bytes) * t.batch;
}

cudaError_t move_units(const InplaceProblem& t, uint32_t* claimed, int sm_count, cudaStream_t stream) {
  const layout::InplaceShape s = layout::inplace_shape(t.rows, t.cols);
  const int64_t pieces = pieces_a_unit(s.c * t.elem_bytes), piece_bytes = s.c * t.elem_bytes / pieces;
  const int word = chains::widest_word({piece_bytes, int64_t(reinterpret_cast<uintptr_t>(t.data))});
  const int64_t vecs = piece_bytes / word;
  const chains::UnitPieces map{layout::UnitWalk(s, uint32_t(pieces)), vecs, layout::unit_count(s) * pieces * vecs};
  const auto launch = chains::plan_launch(map, piece_bytes, word, layout::unit_count(s) * pieces, unit_pieces(t));
  return with_elem_bytes(word, [&](auto w) {
    return chains::move<decltype(w)::value>(launch, t.data, claimed, sm_count, stream);
  });
}

const char* refusal(const InplaceProblem& t) {
  const layout::InplaceShape s = layout::inplace_shape(t.rows, t.cols);
  if (!square(t)) {
    if (s.c * t.elem_bytes > kMaxUnitBytes)
      return "rectangular matrices whose sides share a factor of more than 96 KiB (gcd(rows, cols) x elem_bytes) "
             "are not yet transposed in place on the GPU";
    if (unit_pieces(t) >= (int64_t(1) << 32))
      return "rectangular matrices of 2^32 pieces of rows of gcd(rows, cols) elements or more are not yet transposed "
             "in place on the GPU";
  }
  const int64_t tiles = (s.c + tile_side(t) - 1) / tile_side(t);
  if (layout::fold_launch_rows(tiles) > layout::max_grid_yz)
    return "the matrix is too large for one launch's grid (more than 2^17 tiles a side)";
  return nullptr;
}

size_t workspace_bytes(const InplaceProblem& t) {
  return square(t) ? 0 : size_t((unit_pieces(t) + 31) / 32 * 4);  // a bit a piece
}

const char* tiles_moved_as(const InplaceProblem& t) {
  return small_blocks(t) ? "small blocks" : vectors(t) ? "vectors" : t.elem_bytes <= 2 ? "shifted words" : "elements";
}

std::string describe(const InplaceProblem& t) {
  if (square(t)) return std::string("square tile pairs swapped across the diagonal, moved as ") + tiles_moved_as(t) + ", no workspace";
  const layout::InplaceShape s = layout::inplace_shape(t.rows, t.cols);
  const std::string blocks =
      s.c == 1 ? std::string("sides sharing no factor: no blocks to turn")
               : std::to_string(s.a) + " x " + std::to_string(s.b) + " blocks of " + std::to_string(s.c) + " x " +
                     std::to_string(s.c) + " turned in place (" +
                     (small_blocks(t) ? std::string("each whole through shared memory")
                                      : std::string("tile pairs moved as ") + tiles_moved_as(t)) +
                     ")";
  return blocks + ", then " + std::to_string(layout::unit_count(s) * t.batch) + " rows of " + std::to_string(s.c) +
         " elements moved along their cycles (in pieces of at most 1 KiB); workspace " +
         std::to_string(workspace_bytes(t)) + " bytes (a bit a piece)";
}

cudaError_t transpose(const InplaceProblem& t, void* workspace, int sm_count, cudaStream_t stream) {
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
    const unsigned char* const low = static_cast<const unsigned char*>(t.data);
    for (int64_t z = 0; z < blocks; z += layout::max_grid_yz) {
      const Blocks k{s, s.a * s.b, tiles, z};
      const dim3 grid(unsigned(tiles + 1), unsigned(layout::fold_launch_rows(tiles)),
                      unsigned(std::min<int64_t>(layout::max_grid_yz, blocks - z)));
      if constexpr (E <= 2) {
        if (vectors(t))
          inplace_swap_packed<E><<<grid, layout::PackedPairTile<E>::threads, 0, stream>>>(static_cast<Elem<E>*>(t.data), k);
        else
          inplace_swap_shifted<E><<<grid, layout::PackedPairTile<E>::threads, 0, stream>>>(
              static_cast<Elem<E>*>(t.data), k, low, low + s.m * s.n * E * t.batch);
      } else if (!vectors(t))
        inplace_swap_tiles<E><<<grid, dim3(ElemTile<E>::side, ElemTile<E>::rows), 0, stream>>>(
            static_cast<InplaceElem<E>*>(t.data), k);
      else
        inplace_swap_vec_tiles<E><<<grid, layout::VecTile<E>::threads, 0, stream>>>(static_cast<Elem<E>*>(t.data), k);
      if (cudaError_t err = cudaGetLastError(); err != cudaSuccess) return err;
    }
    return cudaSuccess;
  });
  if (turned != cudaSuccess || square(t)) return turned;

  return move_units(t, static_cast<uint32_t*>(workspace), sm_count, stream);
}

}  // namespace

const InplacePath tiles_path = {"tiles", [](const InplaceProblem&) { return true; }, refusal, workspace_bytes, describe,
                                transpose};

const InplacePath& inplace_path_of(const InplaceProblem& t) {
  for (const InplacePath* p : {&narrow::path, &c2r::path})
    if (p->takes(t)) return *p;
  return tiles_path;
}

}  // namespace xpose::engines
