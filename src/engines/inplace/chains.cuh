// Pieces of a matrix moved along the cycles of a permutation of them, in place, with a bit of
// workspace a piece and no list of cycles (the in-place transposition's last pass: rows of g
// elements for sides sharing g, row pieces of strips for the others). Each chain (a warp)
// claims a piece by setting its bit in the bitmap: a chain starting at piece p loads p, then
// claims it (a piece claimed before is left to its claimer); a chain carrying p's contents
// claims p's destination q, and if it wins loads q, stores what it carries there and carries
// q's on, and if it loses stores and stops (q's contents are already on their way). Every piece
// is loaded before it is overwritten and written exactly once.
#pragma once

#include <cooperative_groups.h>

#include <algorithm>
#include <initializer_list>

#include "engines/async_copy.cuh"
#include "engines/common.cuh"
#include "engines/inplace/elem.cuh"
#include "layout/fast_divmod.hpp"
#include "layout/inplace.hpp"

namespace xpose::engines::chains {

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
constexpr int kBatch = 8;                  // loads of words under 4 bytes a thread has in flight
static_assert(kMaxRound <= T && kMaxRound <= layout::kStripJumps, "a round's positions are a lane's each");

// Where pieces are and go: Pieces::next(p) is where piece p (of its matrix) goes, and
// Pieces::word(matrix, p) its first word (V bytes) from data.
template <class Pieces>
struct ChainArgs {
  Pieces map;
  layout::FastDivmod words;  // a piece's words (vecs)
  uint32_t pieces, total;    // pieces a matrix, all
  int vecs, round;           // words a piece, pieces a round
  uint32_t zero;             // 0, which the compiler cannot know: see the stores
  // Framed (the kernel's Framed, V = 16): pieces that start anywhere in a 16-byte word, each piece's
  // destination as far into its word as the piece itself (the pieces of a matrix whose bytes are
  // not a multiple of 16, in a batch: every piece of a matrix equally far), moved as the aligned
  // words around them (vecs: a piece's bytes' words and one more), the first and last words'
  // bytes outside the piece left alone. Pieces::word() then counts bytes from the caller's data,
  // which is `lead` bytes into the kernel's (aligned down); the kernel reads only the bytes
  // [lead, lead + span) there.
  int piece_bytes;
  uint32_t lead;
  int64_t span;
};

// Rows of g elements (units) cut into pieces: piece p of a matrix is at word p vecs of it, and
// the matrices matrix_words apart.
struct UnitPieces {
  static constexpr bool kMayJump = false;  // Pieces::jump(p, j): next() j times at once, where jumps()
  layout::UnitWalk walk;
  int64_t vecs, matrix_words;
  __device__ uint32_t next(uint32_t p) const { return walk.next(p); }
  __device__ int64_t word(uint32_t matrix, uint32_t, uint32_t p) const { return matrix * matrix_words + p * vecs; }
};

template <int V>
__device__ __forceinline__ void load_word(Elem<V>* to, const Elem<V>* from) {
  if constexpr (V >= 4) {  // asynchronous: every word of the round in flight at once
    copy_async<V>(to, from);
  } else {
    *to = __ldcg(from);
  }
}

// Ordering without fences (a fence a round cost more than the round's data: ERRBAR and an L1
// invalidation, 45% of the stall samples on fp32 8192x4096, H200): a piece is claimed only
// after its loads have landed in shared memory (cp.async.wait_all, or a register stored there),
// so no later store can reach them; and every store waits on the claims' results, which its
// predicate reads (the carried piece's store too, through `zero`), so none leaves before them.

template <int V, class Pieces, bool Framed = false>
__global__ void __launch_bounds__(256) inplace_move_pieces(Elem<V>* data, uint32_t* claimed, ChainArgs<Pieces> u) {
  static_assert(!Framed || V == 16, "framed pieces move as 16-byte words");
  using W = Elem<V>;
  extern __shared__ uint4 chain_smem[];
  const auto chain = cg::tiled_partition<T>(cg::this_thread_block());
  const int lane = int(chain.thread_rank()), slots = u.round + 1, vecs = u.vecs;
  const uint32_t in_block = threadIdx.x / T, chains_a_block = blockDim.x / T;
  int64_t* const off = reinterpret_cast<int64_t*>(chain_smem) + in_block * kMaxRound;  // q_j's first word
  uint32_t* const q = reinterpret_cast<uint32_t*>(reinterpret_cast<int64_t*>(chain_smem) + chains_a_block * kMaxRound) +
                      in_block * kWalkWords;  // [count] [next] at the end
  W* const ring = reinterpret_cast<W*>(q - in_block * kWalkWords + chains_a_block * kWalkWords) +
                  int64_t(in_block) * slots * vecs;
  const uint32_t chains = gridDim.x * chains_a_block, per_chain = (u.total + chains - 1) / chains;
  const uint32_t begin = (blockIdx.x * chains_a_block + in_block) * per_chain;
  const uint32_t end = begin + per_chain < u.total ? begin + per_chain : u.total;
  constexpr bool framed = Framed;
  // q_j's first word from data, or framed, its first byte from data
  const auto place = [&](uint32_t matrix, uint32_t p) -> int64_t {
    const int64_t w = u.map.word(matrix, u.pieces, p);
    return framed ? int64_t(u.lead) + w : w;
  };
  const auto first_word = [&](int j) { return framed ? off[j] >> 4 : off[j]; };
  // Framed: a word partly outside the matrices' bytes is read a byte at a time, those bytes alone.
  const auto load = [&](W* to, int64_t word) {
    if constexpr (Framed)
      if ((word * 16 < int64_t(u.lead) || word * 16 + 16 > int64_t(u.lead) + u.span)) {
        const unsigned char* const bytes = reinterpret_cast<const unsigned char*>(data);
        *reinterpret_cast<uint4*>(to) = load_within(bytes + word * 16, bytes + u.lead, bytes + u.lead + u.span);
        return;
      }
    load_word<V>(to, data + word);
  };
  for (uint32_t p0 = begin; p0 < end; ++p0) {
    // Starts taken (claimed by a walk) are skipped by the word of their bits, not one load each.
    uint32_t ahead = 0;  // one read for the chain: its threads must agree
    if (lane == 0) ahead = *reinterpret_cast<volatile uint32_t*>(claimed + (p0 >> 5)) >> (p0 & 31);
    ahead = chain.shfl(ahead, 0);
    if (ahead & 1) {
      p0 += (~ahead ? uint32_t(__ffs(~ahead)) - 1 : 32 - (p0 & 31)) - 1;
      continue;
    }
    const uint32_t matrix = p0 / u.pieces, first = matrix * u.pieces;  // p0's matrix, its first piece
    uint32_t at = p0;
    int carried = 0;  // the carried piece's slot
    bool carrying = false;
    for (int k = min(kFirstRound, u.round);; k = min(2 * k, u.round)) {
      chain.sync();  // everyone is done with the last round's positions
      // The round's positions, up to k or back at the start (ours: the end), and their words:
      // lane j finds q_j where the map jumps, else lane 0 walks.
      bool walked = false;
      if constexpr (Pieces::kMayJump)
        if (u.map.jumps()) {
          const uint32_t x = lane < k ? first + u.map.jump(at - first, lane) : 0;
          const unsigned back = chain.ballot(lane < k && x == p0 && (carrying || lane > 0));
          const int n = back ? __ffs(back) : k;
          if (lane < n) q[lane] = x, off[lane] = place(matrix, x - first);
          if (lane == n - 1) q[kMaxRound] = uint32_t(n), q[kMaxRound + 1] = first + u.map.next(x - first);
          walked = true;
        }
      if (!walked) {
        if (lane == 0) {
          int n = 0;
          for (uint32_t x = at;; x = first + u.map.next(x - first)) {
            q[n++] = x;
            if (n >= k || (x == p0 && (carrying || n > 1))) {
              q[kMaxRound] = uint32_t(n), q[kMaxRound + 1] = first + u.map.next(x - first);
              break;
            }
          }
        }
        chain.sync();
        if (lane < int(q[kMaxRound])) off[lane] = place(matrix, q[lane] - first);
      }
      chain.sync();
      const int n = int(q[kMaxRound]), items = n * vecs;
      // Item j vecs + w is word w of piece j: pieces of T words or more a piece at a time, smaller
      // ones item by item (a division each); words under 4 bytes (no cp.async) kBatch at a time
      // through registers, so that their loads are in flight together.
      if constexpr (V < 4) {
        for (int i0 = lane; i0 < items; i0 += kBatch * T) {
          W v[kBatch];
          int to[kBatch];
#pragma unroll
          for (int b = 0; b < kBatch; ++b) {
            const int i = i0 + b * T;
            if (i < items) {
              uint32_t w;
              const int j = int(u.words.divmod(uint32_t(i), &w)), slot = carried + 1 + j;
              to[b] = (slot < slots ? slot : slot - slots) * vecs + int(w);
              v[b] = __ldcg(data + first_word(j) + w);
            }
          }
#pragma unroll
          for (int b = 0; b < kBatch; ++b)
            if (i0 + b * T < items) ring[to[b]] = v[b];
        }
      } else if (vecs >= T) {
        for (int j = 0, slot = carried; j < n; ++j) {
          slot = slot + 1 == slots ? 0 : slot + 1;
          W* const to = ring + slot * vecs;
          const int64_t from = first_word(j);
          for (int w = (lane - j * vecs) & (T - 1); w < vecs; w += T) load(to + w, from + w);
        }
      } else {
        for (int i = lane; i < items; i += T) {
          uint32_t w;
          const int j = int(u.words.divmod(uint32_t(i), &w)), slot = carried + 1 + j;
          load(ring + (slot < slots ? slot : slot - slots) * vecs + w, first_word(j) + w);
        }
      }
      if constexpr (V >= 4) wait_async_all();
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
      if constexpr (Framed) {
        // Word w of q_j from word w of the slot (the piece delivered there sits as far into its
        // first word); the piece's first and last words in part.
        for (int i = lane; i < items; i += T) {
          uint32_t w;
          const int j = int(u.words.divmod(uint32_t(i), &w)), slot = carried + j;
          if (!delivers(j)) continue;
          const int d = int(off[j] & 15), lo = max(0, d - 16 * int(w)), hi = min(16, d + u.piece_bytes - 16 * int(w));
          if (lo >= hi) continue;
          const W v = ring[(slot < slots ? slot : slot - slots) * vecs + w];
          W* const to = data + (off[j] >> 4) + w;
          store_part(reinterpret_cast<unsigned char*>(to), v, lo, hi);
        }
      } else if (vecs >= T) {
        for (int j = 0, slot = carried; j < n; ++j, slot = slot + 1 == slots ? 0 : slot + 1)
          if (delivers(j)) {
            const W* const from = ring + slot * vecs;
            W* const to = data + off[j];
            for (int w = (lane - j * vecs) & (T - 1); w < vecs; w += T) __stcg(to + w, from[w]);
          }
      } else {
        for (int i = lane; i < items; i += T) {
          uint32_t w;
          const int j = int(u.words.divmod(uint32_t(i), &w)), slot = carried + j;
          if (delivers(j))
            __stcg(data + off[j] + w, ring[(slot < slots ? slot : slot - slots) * vecs + w]);
        }
      }
      if (!(won >> (n - 1) & 1)) break;
      carried = (carried + n) % slots, carrying = true, at = q[kMaxRound + 1];  // piece n - 1's contents
    }
  }
}


// The launch of a chain pass over `total` pieces of piece_bytes each (V-byte words): pieces a
// round of about kRoundBytes, chains a block so that their slots fill at most kBlockSmem, and
// blocks enough to fill the GPU. The pass waits on each chain's round trips, so chains count
// more than long rounds: 4 KiB rounds (40 chains an SM for 1 KiB pieces, where 8 KiB rounds left
// room for 20) took the shared-factor rectangles 5-6 points up (H200, fp32 8192x4096 34.0 ->
// 40.3% of a copy, fp16 65536x1024 39.5 -> 45.8, c128 262144x32 38.5 -> 43.0) and narrow ones
// 0.5-1.6; 2 KiB rounds (no more chains: 44 registers allow 40 warps an SM) lost on c128.
constexpr int64_t kRoundBytes = 4 << 10, kBlockSmem = 48 << 10;

template <class Pieces>
struct Launch {
  ChainArgs<Pieces> args;
  int chains = 1;
  int64_t piece_bytes = 0;
  size_t smem() const {
    return size_t(chains) * (kMaxRound * sizeof(int64_t) + kWalkWords * sizeof(uint32_t) +
                             size_t(args.round + 1) * size_t(piece_bytes));
  }
};

// The widest word (1 to 16 bytes, a power of two) that divides every one of `bytes`: the pieces'
// size, their offsets' steps and data's address.
inline int widest_word(std::initializer_list<int64_t> bytes) {
  int word = 1;
  while (word < 16 && std::all_of(bytes.begin(), bytes.end(), [&](int64_t b) { return b % (2 * word) == 0; }))
    word *= 2;
  return word;
}

template <class Pieces>
Launch<Pieces> plan_launch(const Pieces& map, int64_t piece_bytes, int word, int64_t per_matrix, int64_t total) {
  Launch<Pieces> u;
  u.piece_bytes = piece_bytes;
  const int64_t vecs = piece_bytes / word, round = std::clamp<int64_t>(kRoundBytes / piece_bytes, 1, kMaxRound);
  u.chains = int(std::clamp<int64_t>(kBlockSmem / (kMaxRound * 8 + kWalkWords * 4 + (round + 1) * piece_bytes), 1, 256 / T));
  u.args.map = map;
  u.args.pieces = uint32_t(per_matrix), u.args.total = uint32_t(total);
  u.args.vecs = int(vecs), u.args.round = int(round), u.args.words = layout::FastDivmod(uint32_t(vecs));
  u.args.zero = 0;
  u.args.piece_bytes = 0, u.args.lead = 0, u.args.span = 0;
  return u;
}

// The launch of a framed pass (ChainArgs' Framed): pieces of piece_bytes anywhere in their
// 16-byte words, moved as the piece_bytes / 16 + 1 aligned words around each; the caller's data
// `lead` bytes past a 16-byte boundary, the matrices' bytes `span` from there.
template <class Pieces>
Launch<Pieces> plan_framed_launch(const Pieces& map, int64_t piece_bytes, uint32_t lead, int64_t span,
                                  int64_t per_matrix, int64_t total) {
  Launch<Pieces> u = plan_launch(map, piece_bytes + 16, 16, per_matrix, total);
  u.args.piece_bytes = int(piece_bytes), u.args.lead = lead, u.args.span = span;
  return u;
}

// Enqueues the pass (claimed: the bitmap, zeroed here).
template <int V, class Pieces, bool Framed = false>
cudaError_t move(const Launch<Pieces>& u, void* data, uint32_t* claimed, int sm_count, cudaStream_t stream) {
  if (cudaError_t err = cudaMemsetAsync(claimed, 0, size_t((u.args.total + 31) / 32 * 4), stream); err != cudaSuccess)
    return err;
  const int64_t per_sm = std::max<int64_t>(1, std::min<int64_t>(2048 / (u.chains * T), (220 << 10) / u.smem()));
  const int64_t grid =
      std::max<int64_t>(1, std::min<int64_t>(per_sm * sm_count, (int64_t(u.args.total) + u.chains - 1) / u.chains));
  const auto kernel = inplace_move_pieces<V, Pieces, Framed>;
  if (u.smem() > size_t(kBlockSmem))
    if (cudaError_t err = cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(u.smem()));
        err != cudaSuccess)
      return err;
  kernel<<<unsigned(grid), unsigned(u.chains * T), u.smem(), stream>>>(static_cast<Elem<V>*>(data), claimed, u.args);
  return cudaGetLastError();
}

}  // namespace xpose::engines::chains
