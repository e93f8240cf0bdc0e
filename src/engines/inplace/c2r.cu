// In-place transposition of rectangles whose sides share fewer than 16 bytes and are both
// longer than layout::narrow_max_side(E), 384-6144 elements (narrow.cu takes the others): the
// passes of layout/inplace.hpp on the view of M rows of the short side N (the matrix itself if
// tall; for a wide one, the view n x m whose transpose it undoes, the passes inverted in reverse
// order), each reading and writing the matrix once, coalesced:
//   rotation (sides sharing a factor c > 1): column k moves up by k / b rows (a shift sweep);
//   rows:   each row permuted through shared memory (rows of up to 160 KiB);
//   fine:   column k moves up by k mod W rows, W the strip width (a shift sweep);
//   strips: row pieces of W columns (the last strip's narrower, a launch of its own) moved
//           along the cycles of layout::StripWalk by chains (chains.cuh), a bit a piece.
// A shift sweep: a block walks its part of a band of rows (one band, or bands of 32768 rows
// or more; up to 8 parts a band, a cluster) of 128 bytes of columns (64 columns of 1- and
// 2-byte elements) from the top, loading rows ahead into a ring in shared memory before it
// writes the rows behind them; the rows it reads past its part's end (fewer than 128) are the
// next part's first, which each part saves in its shared memory before any is written, or past
// a band's end, the next band's, saved in the workspace by c2r_halo before the sweep.
#include "engines/inplace/inplace.hpp"

#include <algorithm>

#include "engines/inplace/chains.cuh"

namespace xpose::engines::c2r {
namespace {

namespace cg = cooperative_groups;

constexpr int64_t kBandRows = 32768;  // rows a band at least (where there are several): its halo (< 128 rows) under 0.4%
constexpr int kMaxHalo = 127;         // rows a sweep reads past its end: the strip width less one, at most
constexpr int kSweepThreads = 256, kSweepRows = 64, kRing = 256;  // kRing >= kSweepRows + kMaxHalo, a power of two
constexpr int kMaxParts = 8, kMinPartRows = 256;  // a band's blocks (a cluster), each of this many rows at least
constexpr int64_t kRowTileBytes = 16 << 10, kMaxRowBytes = 160 << 10;
constexpr int kRowLoads = 8, kRowThreads = 256;  // loads a thread has in flight in the rows pass; its block
static_assert(kRing >= kSweepRows + kMaxHalo && (kRing & (kRing - 1)) == 0);
template <int E>
constexpr int kTileColumns = E >= 4 ? 128 / E : 64;  // a sweep block's columns (bytes: 64 rows a step in registers)

struct View {
  layout::InplaceShape s;  // M = s.m rows of N = s.n
  bool inverse = false;    // undo the view's transpose (a wide matrix)
  int64_t width = 1;       // strip width W
  int64_t full = 0, strips = 0;
  int64_t bands = 1, band_rows = 0, halo_rows = 0;  // halo_rows: the larger of the two shifts' halos
  size_t full_bits = 0, last_bits = 0, halo_bytes = 0;
};

size_t round256(int64_t x) { return size_t((x + 255) / 256 * 256); }

View view_of(const InplaceProblem& t) {
  View v;
  v.inverse = t.rows < t.cols;
  const int64_t M = std::max(t.rows, t.cols), N = std::min(t.rows, t.cols);
  v.s = layout::inplace_shape(M, N);
  v.width = layout::strip_width(t.elem_bytes);
  v.full = N / v.width, v.strips = (N + v.width - 1) / v.width;
  v.bands = std::max<int64_t>(1, M / kBandRows), v.band_rows = (M + v.bands - 1) / v.bands;
  v.halo_rows = std::max(std::min(v.width, N), v.s.c) - 1;
  v.full_bits = round256((M * v.full * t.batch + 31) / 32 * 4);
  v.last_bits = v.strips > v.full ? round256((M * t.batch + 31) / 32 * 4) : 0;
  v.halo_bytes = v.bands > 1 ? size_t(t.batch * v.bands * v.halo_rows * N * t.elem_bytes) : 0;
  return v;
}

struct ShiftArgs {
  uint32_t m, n, bands, band_rows;
  int64_t matrix;               // m n
  int halo_rows;                // the largest shift
  layout::FastDivmod rotation;  // the rotation: column k moves by k / b
  uint32_t fine_mask;           // the fine shift (rotation.divisor unused): by k & fine_mask
  bool fine;
  int64_t z0;
};

template <bool Down>
__device__ __forceinline__ int64_t shift_at(const ShiftArgs& a, uint32_t v, uint32_t k) {
  return int64_t(Down ? a.m - 1 - v : v) * a.n + k;  // virtual row v: the sweep's order
}

// The rows each band reads past its end: virtual rows (band end + r) mod M.
template <int E, bool Down>
__global__ void __launch_bounds__(256) c2r_halo(const Elem<E>* data, Elem<E>* halo, ShiftArgs a, int64_t count) {
  for (int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < count; i += int64_t(gridDim.x) * blockDim.x) {
    const int64_t rest = i / a.n, k = i - rest * a.n, r = rest % a.halo_rows, band = rest / a.halo_rows % a.bands,
                  z = rest / a.halo_rows / a.bands;
    const int64_t end = min(int64_t(a.m), (band + 1) * a.band_rows);
    halo[i] = data[z * a.matrix + shift_at<Down>(a, uint32_t((end + r) % a.m), uint32_t(k))];
  }
}

// Column k moves up (down: in reverse row order) by its shift, within part (cluster rank) of
// band blockIdx.x / parts, a tile of columns a block (blockIdx.y), matrix z0 + blockIdx.z. A
// band's parts (a cluster) first save their first halo_rows rows, which the part before reads
// past its end through distributed shared memory; the band's last part reads the next band's
// first rows from the workspace (several bands) or part 0's (one band: the matrix's first).
template <int E, bool Down>
__global__ void __launch_bounds__(kSweepThreads, 1) c2r_shift(Elem<E>* data, const Elem<E>* halo, ShiftArgs a) {
  constexpr int TW = kTileColumns<E>, RP = kSweepThreads / TW, STEPS = kSweepRows / RP;
  extern __shared__ uint4 sweep_words[];
  Elem<E>* const ring = reinterpret_cast<Elem<E>*>(sweep_words);  // [kRing][TW]
  Elem<E>* const wrap = ring + kRing * TW;                         // [halo_rows][TW]: rows past the part's end
  Elem<E>* const saved = wrap + a.halo_rows * TW;                  // [halo_rows][TW]: the part's first rows
  const cg::cluster_group cluster = cg::this_cluster();
  const uint32_t parts = cluster.num_blocks(), part = cluster.block_rank(), band = blockIdx.x / parts;
  const int x = int(threadIdx.x) % TW, y = int(threadIdx.x) / TW, h = a.halo_rows;
  const uint32_t k = blockIdx.y * TW + x;
  const bool active = k < a.n;
  const uint32_t d = a.fine ? k & a.fine_mask : a.rotation.div(k);
  const int64_t z = a.z0 + blockIdx.z;
  Elem<E>* const mat = data + z * a.matrix;
  const uint32_t b0 = band * a.band_rows, b1 = min(a.m, b0 + a.band_rows), per = (b1 - b0 + parts - 1) / parts;
  const uint32_t v0 = b0 + part * per, v1 = min(b1, v0 + per);
  if (active)
    for (int r = y; r < h; r += RP) saved[r * TW + x] = mat[shift_at<Down>(a, v0 + r, k)];
  cluster.sync();  // every part's first rows saved before any is written
  const bool last = part + 1 == parts;
  if (active) {
    if (!last || a.bands == 1) {
      const Elem<E>* const next = cluster.map_shared_rank(saved, last ? 0 : part + 1);
      for (int r = y; r < h; r += RP) wrap[r * TW + x] = next[r * TW + x];
    } else {
      for (int r = y; r < h; r += RP) wrap[r * TW + x] = halo[((z * a.bands + band) * h + r) * a.n + k];
    }
  }
  cluster.sync();  // done with the other parts' shared memory
  const auto row = [&](uint32_t v) { return v < v1 ? mat[shift_at<Down>(a, v, k)] : wrap[(v - v1) * TW + x]; };
  if (active)
    for (int r = y; r < h; r += RP) ring[((v0 + r) % kRing) * TW + x] = row(v0 + r);
  // Rows arrive kSweepRows at a time: those of the next step's writes and the rows they read
  // past them, loaded into registers while this step's rows are written (all of them below
  // every row written so far), then put in the ring.
  Elem<E> held[STEPS];
  const uint32_t end = v1 + uint32_t(h);
  const auto fetch = [&](uint32_t first) {
#pragma unroll
    for (int i = 0; i < STEPS; ++i) {
      const uint32_t v = first + y + i * RP;
      if (active && v < end) held[i] = row(v);
    }
  };
  fetch(v0 + h);
  for (uint32_t o = v0; o < v1; o += kSweepRows) {
#pragma unroll
    for (int i = 0; i < STEPS; ++i) {
      const uint32_t v = o + h + y + i * RP;
      if (active && v < end) ring[(v % kRing) * TW + x] = held[i];
    }
    __syncthreads();
    fetch(o + h + kSweepRows);
#pragma unroll
    for (int i = 0; i < STEPS; ++i) {
      const uint32_t v = o + y + i * RP;
      if (active && v < v1) mat[shift_at<Down>(a, v, k)] = ring[((v + d) % kRing) * TW + x];
    }
    __syncthreads();
  }
}

struct RowArgs {
  uint32_t m, n, mm;                  // M, N, M mod N
  layout::FastDivmod b, cols, rows;  // divisors b, N, M
  double inv_n;
  int64_t total_rows;  // M batch
  uint32_t per_block;  // rows a block
  uint32_t step;       // kRowThreads M mod N: a destination's step along a thread's columns (coprime sides)
  bool coprime;
};

// Pass 2 on per_block rows through shared memory: each element to its column (a scatter), or
// back from it (Gather: the inverse).
template <int E, bool Gather>
__global__ void __launch_bounds__(kRowThreads) c2r_rows(Elem<E>* data, RowArgs a) {
  extern __shared__ uint4 row_words[];
  Elem<E>* const buf = reinterpret_cast<Elem<E>*>(row_words);
  const int64_t g0 = int64_t(blockIdx.x) * a.per_block;
  const uint32_t rows = uint32_t(min(int64_t(a.per_block), a.total_rows - g0)), count = rows * a.n;
  Elem<E>* const base = data + g0 * a.n;
  const uint32_t i0 = uint32_t(g0 % a.m);
  const auto place = [&](uint32_t idx) {  // where element idx of the block's rows goes in buf
    uint32_t j, i, i_n;
    const uint32_t local = a.cols.divmod(idx, &j);
    a.rows.divmod(i0 + local, &i);
    a.cols.divmod(i, &i_n);
    return local * a.n + layout::row_destination_fast(i, i_n, j, a.b, a.cols, a.m, a.mm, a.inv_n);
  };
  // Loads kRowLoads a thread at a time into registers, then into shared memory.
  const auto stage = [&](auto&& put) {
    for (uint32_t first = threadIdx.x; first < count; first += kRowLoads * blockDim.x) {
      Elem<E> v[kRowLoads];
#pragma unroll
      for (int u = 0; u < kRowLoads; ++u)
        if (first + u * blockDim.x < count) v[u] = base[first + u * blockDim.x];
#pragma unroll
      for (int u = 0; u < kRowLoads; ++u)
        if (first + u * blockDim.x < count) put(first + u * blockDim.x, v[u]);
    }
  };
  if (a.per_block == 1) {
    // One row a block: thread t's columns t, t + 256, ..., whose destinations step by 256 M mod
    // N where the sides are coprime (no division an element).
    uint32_t i_n;
    a.cols.divmod(i0, &i_n);
    const auto column = [&](uint32_t j) {
      return layout::row_destination_fast(i0, i_n, j, a.b, a.cols, a.m, a.mm, a.inv_n);
    };
    uint32_t d = column(threadIdx.x);
    const auto advance = [&](uint32_t j) {  // d for column j, the thread's next
      if (a.coprime) {
        d += a.step;
        d = d >= a.n ? d - a.n : d;
      } else if (j < a.n) {
        d = column(j);
      }
    };
    if constexpr (!Gather) {
      stage([&](uint32_t j, Elem<E> v) {
        buf[d] = v;
        advance(j + blockDim.x);
      });
      __syncthreads();
      for (uint32_t j = threadIdx.x; j < count; j += blockDim.x) base[j] = buf[j];
    } else {
      stage([&](uint32_t j, Elem<E> v) { buf[j] = v; });
      __syncthreads();
      for (uint32_t j = threadIdx.x; j < count; j += blockDim.x) {
        base[j] = buf[d];
        advance(j + blockDim.x);
      }
    }
  } else if constexpr (!Gather) {
    stage([&](uint32_t idx, Elem<E> v) { buf[place(idx)] = v; });
    __syncthreads();
    for (uint32_t idx = threadIdx.x; idx < count; idx += blockDim.x) base[idx] = buf[idx];
  } else {
    stage([&](uint32_t idx, Elem<E> v) { buf[idx] = v; });
    __syncthreads();
    for (uint32_t idx = threadIdx.x; idx < count; idx += blockDim.x) base[idx] = buf[place(idx)];
  }
}

// The strips' row pieces for the chains: piece p of a launch's strips, at byte offset
// walk.offset(p) E in its matrix.
struct StripPieces {
  static constexpr bool kMayJump = true;
  layout::StripWalk walk;
  int64_t matrix_bytes;
  int elem_bytes, word_shift;
  __device__ uint32_t next(uint32_t p) const { return walk.next(p); }
  __device__ bool jumps() const { return walk.jumps; }
  __device__ uint32_t jump(uint32_t p, int j) const { return walk.jump(p, j); }
  __device__ int64_t word(uint32_t matrix, uint32_t, uint32_t p) const {
    return (int64_t(matrix) * matrix_bytes + walk.offset(p) * elem_bytes) >> word_shift;
  }
};

// Rows of 1024 elements or more one a block (column by column, no division an element), shorter
// ones kRowTileBytes a block.
int64_t rows_a_block(int64_t cols, int64_t elem_bytes) {
  return cols >= 1024 ? 1 : std::max<int64_t>(1, kRowTileBytes / (cols * elem_bytes));
}

bool takes(const InplaceProblem& t) {
  return t.rows != t.cols && layout::inplace_shape(t.rows, t.cols).c * t.elem_bytes < layout::inplace_unit_bytes;
}

const char* refusal(const InplaceProblem& t) {
  const int64_t M = std::max(t.rows, t.cols), N = std::min(t.rows, t.cols);
  if (N * t.elem_bytes > kMaxRowBytes)
    return "rectangles whose sides share fewer than 16 bytes and whose short side is over 160 KiB are not yet "
           "transposed in place on the GPU";
  if (M >= (int64_t(1) << 31))
    return "rectangles whose sides share fewer than 16 bytes with a side of 2^31 elements or more are not yet "
           "transposed in place on the GPU";
  const View v = view_of(t);
  if (M * v.strips * t.batch >= (int64_t(1) << 32) || (M * t.batch + 1) / rows_a_block(N, t.elem_bytes) >= (int64_t(1) << 31))
    return "rectangles whose sides share fewer than 16 bytes are transposed in place on the GPU in batches of fewer "
           "than 2^32 row pieces (rows of the long side x strips of 128 columns of the short side, 64 of 8-byte "
           "elements)";
  return nullptr;
}

size_t workspace_bytes(const InplaceProblem& t) {
  const View v = view_of(t);
  return v.full_bits + v.last_bits + v.halo_bytes;
}

std::string describe(const InplaceProblem& t) {
  const View v = view_of(t);
  const std::string M = std::to_string(v.s.m), N = std::to_string(v.s.n), W = std::to_string(v.width);
  std::string text = std::string("sides sharing fewer than 16 bytes: ") +
                     (v.inverse ? "the view " + M + " x " + N + "'s transposition undone: " : "") + "rows of " + N;
  const std::string passes =
      (v.s.c > 1 ? "columns rotated, " : std::string()) + "rows permuted in shared memory, columns shifted by up to " +
      std::to_string(std::min(v.width, v.s.n) - 1) + " rows, " +
      (v.s.n <= v.width ? std::string("whole rows") : "pieces of rows in strips of " + W + " columns") +
      " moved along their cycles";
  return text + " (" + passes + (v.inverse ? ", each undone, in reverse order" : "") + "); workspace " +
         std::to_string(workspace_bytes(t)) + " bytes (a bit a piece" + (v.bands > 1 ? ", rows past bands' ends" : "") +
         ")";
}

cudaError_t transpose(const InplaceProblem& t, void* workspace, int sm_count, cudaStream_t stream) {
  const View v = view_of(t);
  const uint32_t M = uint32_t(v.s.m), N = uint32_t(v.s.n);
  auto* const ws = static_cast<unsigned char*>(workspace);
  uint32_t* const full_bits = reinterpret_cast<uint32_t*>(ws);
  uint32_t* const last_bits = reinterpret_cast<uint32_t*>(ws + v.full_bits);
  return with_elem_bytes_up_to_8(t.elem_bytes, cudaErrorInvalidValue, [&](auto e) -> cudaError_t {
    constexpr int E = decltype(e)::value;
    Elem<E>* const data = static_cast<Elem<E>*>(t.data);
    Elem<E>* const halo = reinterpret_cast<Elem<E>*>(ws + v.full_bits + v.last_bits);
    const auto shift = [&](bool fine, bool down) -> cudaError_t {
      ShiftArgs a{};
      a.m = M, a.n = N, a.bands = uint32_t(v.bands), a.band_rows = uint32_t(v.band_rows), a.matrix = v.s.m * v.s.n;
      a.fine = fine, a.fine_mask = uint32_t(v.width - 1), a.rotation = layout::FastDivmod(uint32_t(v.s.b));
      a.halo_rows = int(fine ? std::min(v.width, v.s.n) - 1 : v.s.c - 1);
      const auto halo_kernel = down ? c2r_halo<E, true> : c2r_halo<E, false>;
      const auto sweep = down ? c2r_shift<E, true> : c2r_shift<E, false>;
      if (v.bands > 1) {
        const int64_t count = t.batch * v.bands * a.halo_rows * N;
        halo_kernel<<<unsigned(std::min<int64_t>((count + 255) / 256, int64_t(sm_count) * 8)), 256, 0, stream>>>(
            data, halo, a, count);
        if (cudaError_t err = cudaGetLastError(); err != cudaSuccess) return err;
      }
      const int64_t parts = std::clamp<int64_t>(v.band_rows / kMinPartRows, 1, kMaxParts);
      const size_t smem = size_t(kRing + 2 * a.halo_rows) * kTileColumns<E> * E;
      if (cudaError_t err = cudaFuncSetAttribute(sweep, cudaFuncAttributeMaxDynamicSharedMemorySize, int(smem));
          err != cudaSuccess)
        return err;
      cudaLaunchAttribute cluster{};
      cluster.id = cudaLaunchAttributeClusterDimension;
      cluster.val.clusterDim.x = unsigned(parts), cluster.val.clusterDim.y = 1, cluster.val.clusterDim.z = 1;
      for (int64_t z = 0; z < t.batch; z += layout::max_grid_yz) {
        a.z0 = z;
        cudaLaunchConfig_t config{};
        config.gridDim = dim3(unsigned(v.bands * parts), unsigned((N + kTileColumns<E> - 1) / kTileColumns<E>),
                              unsigned(std::min<int64_t>(layout::max_grid_yz, t.batch - z)));
        config.blockDim = dim3(kSweepThreads), config.dynamicSmemBytes = smem, config.stream = stream;
        config.attrs = &cluster, config.numAttrs = 1;
        if (cudaError_t err = cudaLaunchKernelEx(&config, sweep, data, static_cast<const Elem<E>*>(halo), a);
            err != cudaSuccess)
          return err;
      }
      return cudaSuccess;
    };
    const auto rows = [&](bool gather) -> cudaError_t {
      RowArgs a{};
      a.m = M, a.n = N, a.mm = M % N;
      a.b = layout::FastDivmod(uint32_t(v.s.b)), a.cols = layout::FastDivmod(N), a.rows = layout::FastDivmod(M);
      a.inv_n = 1.0 / double(N), a.total_rows = v.s.m * t.batch;
      a.per_block = uint32_t(rows_a_block(N, E));
      a.step = uint32_t(kRowThreads * int64_t(M % N) % N), a.coprime = v.s.c == 1;
      const size_t smem = size_t(a.per_block) * N * E;
      const auto kernel = gather ? c2r_rows<E, true> : c2r_rows<E, false>;
      if (smem > (48 << 10))
        if (cudaError_t err = cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(smem));
            err != cudaSuccess)
          return err;
      kernel<<<unsigned((a.total_rows + a.per_block - 1) / a.per_block), kRowThreads, smem, stream>>>(data, a);
      return cudaGetLastError();
    };
    const auto strips = [&]() -> cudaError_t {
      for (bool last : {false, true}) {
        const int64_t first = last ? v.full : 0, count = last ? v.strips - v.full : v.full;
        if (count == 0) continue;
        const int64_t piece_bytes = (last ? v.s.n - v.full * v.width : v.width) * E;
        const int word = chains::widest_word(
            {piece_bytes, v.s.n * E, v.width * E, int64_t(reinterpret_cast<uintptr_t>(t.data))});
        StripPieces map;
        map.walk = layout::StripWalk(v.s, uint32_t(first), uint32_t(v.width), v.inverse);
        map.matrix_bytes = v.s.m * v.s.n * E, map.elem_bytes = E, map.word_shift = __builtin_ctz(unsigned(word));
        const auto launch = chains::plan_launch(map, piece_bytes, word, v.s.m * count, v.s.m * count * t.batch);
        const cudaError_t err = with_elem_bytes(word, [&](auto w) {
          return chains::move<decltype(w)::value>(launch, t.data, last ? last_bits : full_bits, sm_count, stream);
        });
        if (err != cudaSuccess) return err;
      }
      return cudaSuccess;
    };
    cudaError_t err = cudaSuccess;
    const auto then = [&](auto&& pass) {
      if (err == cudaSuccess) err = pass();
    };
    if (!v.inverse) {
      if (v.s.c > 1) then([&] { return shift(false, false); });
      then([&] { return rows(false); });
      then([&] { return shift(true, false); });
      then(strips);
    } else {
      then(strips);
      then([&] { return shift(true, true); });
      then([&] { return rows(true); });
      if (v.s.c > 1) then([&] { return shift(false, true); });
    }
    return err;
  });
}

}  // namespace

const InplacePath path = {"c2r", takes, refusal, workspace_bytes, describe, transpose};

}  // namespace xpose::engines::c2r
