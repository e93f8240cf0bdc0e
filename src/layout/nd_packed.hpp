// permute_packed: tiles made of several axes on each side, for permutations whose fastest axis
// is short on either side (the idea of cuTT's Packed kernel and of TTLG). The tile's axes are
// the fewest of src's fastest axes whose run reaches `run` bytes, the same of dst's (one axis
// may be in both), and then whole outer axes while the tile holds fewer than a block's
// elements; an axis the run needs only part of is cut into equal tiles. A block stages a tile
// in shared memory read in src's order and writes it in dst's:
//   load element l = i + load_row * k: i along the load row (the tile's axes in src order up
//     to and including the first cut one: src's run), k along the rest; staged at i + ld * k
//   store element l = j + store_row * m: j along dst's run, m along the rest
// Each side's offsets are a sum of a row's and a rest's, so the block builds four small tables
// once, and each thread keeps its elements' offsets in registers for every tile it moves.
// Where src's load rows are contiguous (NdPacked::chunks) the loads are the aligned 16-byte
// chunks around each row, copied asynchronously into one of several stages, no element in a
// register; else element by element. By chunks, byte tiles whose dst lines lie in src's run
// are stored as aligned 4-byte words (NdPacked::lines); else element by element.
// A cut axis's last tile is moved back to end at the extent: every tile is whole, the
// elements it shares with the tile before it are written twice with the same values.
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>

#include "layout/elem_size.hpp"
#include "layout/fast_divmod.hpp"
#include "layout/grid.hpp"
#include "layout/hd.hpp"
#include "layout/permute_nd.hpp"

namespace xpose::layout {

constexpr int nd_packed_threads = 256;
// Resident blocks an SM: element by element 4 (64 registers a thread: the loads in flight are
// in registers); by chunks 3 (80: the loads in flight are in the stages), 2 for 1- and 2-byte
// elements (16 a thread) but 3 for bytes stored as words (NdPacked::lines: 2 ran them up to 12
// points slower, docs/experiments.md 49).
constexpr int nd_packed_blocks_per_sm(bool chunks, int64_t elem_bytes, bool lines = false) {
  return lines ? 3 : chunks ? (elem_bytes <= 2 ? 2 : 3) : 4;
}
constexpr int nd_packed_max_axes = 8;      // axes a tile spans
constexpr int nd_packed_max_split = 3;     // of them cut into tiles: src's run's last, dst's, an outer one
constexpr int nd_packed_ring = 32;          // tile origins one warp works out at a time (a lane each)
// Chunk staging (NdPacked::chunks): src rows of at least this many bytes, at most this many
// chunks a thread, stages of at most this many bytes together, and at most this many stages.
constexpr int nd_packed_chunk_row = 64;
constexpr int nd_packed_chunk_slots = 4;
constexpr int nd_packed_stage_budget = 32 * 1024;
constexpr int nd_packed_max_stages = 8;
// Word stores (NdPacked::lines): lines of at least this many bytes (shorter ones, and 2-byte
// elements, ran slower than element by element: docs/experiments.md 49); at most this many of
// a tile's interior words and of its edge words a thread.
constexpr int nd_packed_line_bytes = 192;
// ... and lines at most this many bytes a step apart in the stage (14 and more ran slower, up to
// 16 points: docs/experiments.md 49).
constexpr int nd_packed_line_step_max = 13;
constexpr int nd_packed_word_rounds = 4;
constexpr int nd_packed_edge_rounds = 1;

// Elements a thread moves per tile: element by element every load of them in flight in its
// registers before the first store; by chunks (no loaded element in a register) twice as many
// 1- and 2-byte ones, so that a tile's runs are longer.
template <int E, bool Chunks = false>
struct NdPackedOf {
  static constexpr int per_thread = Chunks && E <= 2 ? 16 : E <= 4 ? 8 : 32 / E;
  static constexpr int most = nd_packed_threads * per_thread;  // a tile's elements at most
};

inline int nd_packed_most(int64_t elem_bytes, bool chunks = false) {
  return with_elem_bytes(elem_bytes, [&](auto e) {
    return chunks ? NdPackedOf<decltype(e)::value, true>::most : NdPackedOf<decltype(e)::value>::most;
  });
}

struct NdPackedAxis {
  uint32_t extent = 1, tile = 1;  // the axis's extent and the tile's along it
  FastDivmod by_tile;             // by tile
  uint32_t staged = 0;            // stride in the staged tile (NdPacked::chunks: see there)
  int32_t src = 0, dst = 0;       // strides, elements (a tile spans fewer than 2^31 of each side)
};

struct NdPacked {
  int rank = 0;  // the tile's axes
  NdPackedAxis axis[nd_packed_max_axes];
  int8_t load_order[nd_packed_max_axes] = {}, store_order[nd_packed_max_axes] = {};  // row axes first
  int load_rank = 0, store_rank = 0;                 // the rows' axes
  uint32_t load_row = 1, load_rest = 1, store_row = 1, store_rest = 1;  // elements along each
  FastDivmod load_div, store_div;                    // by load_row, by store_row
  uint32_t volume = 1, ld = 1;                       // a tile's elements; the staged tile's pitch
  int split_rank = 0;                                // the cut axes, fastest tile index first
  int8_t split[nd_packed_max_split] = {};
  FastDivmod split_tiles[nd_packed_max_split];
  uint32_t items = 1;                                // tiles, times the outer indices
  int run_bytes = 0;                                 // the run the tile was cut for
  uint32_t ring_at = 0;                              // the origin ring's byte offset in it
  // Chunk staging: where src's rows (the load rows) are contiguous, each row of a tile (a
  // segment) is read as the aligned 16-byte chunks around it (cp.async, no registers), into a
  // stage that holds segment k at k * seg_pitch, its first element at its address's remainder
  // modulo 16; `stages` tiles in flight. Else element by element through registers.
  bool chunks = false;
  uint32_t seg_chunks = 0;   // chunks a segment can touch
  uint32_t seg_pitch = 0;    // bytes a segment in a stage: 16 x an odd number
  uint32_t stage_bytes = 0, stages = 1;
  FastDivmod by_seg_chunks;  // by seg_chunks
  uint32_t src_low = 0;      // src's base address modulo 16
  int64_t src_bytes = 0;     // src's span from its base: no chunk reads past it
  // Word stores (nd_packed_lines), by chunks, 1-byte elements: where dst's fastest tile axis
  // (store_order[0]) lies in src's run, each of its lines (line_elems bytes, dst-contiguous)
  // lies in one segment of a stage, line_step bytes a byte apart, and the tile is stored as the
  // aligned 4-byte words that cover its lines, each gathered from the stage: a line's interior
  // words (its words 1 .. inner_words, whole whatever dst's alignment) and its edge words (its
  // first and its last one or two, stored a byte at a time: they may hold bytes of no line).
  // Lines in dst's order, words along each (word k starts 4k bytes past the word its line
  // starts in).
  bool lines = false;
  uint32_t line_elems = 0, line_step = 0, line_count = 0;
  uint32_t inner_words = 0, edge_words = 0;  // a line's
  FastDivmod by_inner, by_edge;               // by inner_words, by edge_words
  uint32_t smem_bytes = 0;                           // dynamic shared memory a block takes

  // Where element n of the axes order[0 .. count) (the first fastest) lies in src, in dst and
  // in the staged tile, from the tile's origin.
  struct Offsets {
    int32_t src, dst;
    uint32_t staged;
  };
  XPOSE_HD Offsets offsets(const int8_t* order, int count, uint32_t n) const {
    Offsets o = {0, 0, 0};
    for (int i = 0; i < count; ++i) {
      const NdPackedAxis& x = axis[order[i]];
      uint32_t c;
      n = x.by_tile.divmod(n, &c);
      o.src += int32_t(c) * int32_t(x.src);
      o.dst += int32_t(c) * int32_t(x.dst);
      o.staged += c * x.staged;  // modulo 2^32: chunk staging's high bits
    }
    return o;
  }
  // The table entries of element n of each side's row and rest.
  XPOSE_HD Offsets load_row_at(uint32_t n) const { return offsets(load_order, load_rank, n); }
  XPOSE_HD Offsets load_rest_at(uint32_t n) const { return offsets(load_order + load_rank, rank - load_rank, n); }
  XPOSE_HD Offsets store_row_at(uint32_t n) const { return offsets(store_order, store_rank, n); }
  XPOSE_HD Offsets store_rest_at(uint32_t n) const { return offsets(store_order + store_rank, rank - store_rank, n); }

  // Word slot n (`lines`: bytes) of the interior words (edge false) or of the edge words, word
  // k of its line: `to`, bytes from the tile's dst origin to where the word would start if its
  // line started on a 4-byte boundary (the line's offset + 4k); `at`, the staged place of the
  // line's byte 4k (as Offsets::staged); `first`, 4k.
  struct Word {
    uint32_t to, at;
    int32_t first;
  };
  XPOSE_HD Word word(uint32_t n, bool edge) const {
    uint32_t k;
    const uint32_t line = (edge ? by_edge : by_inner).divmod(n, &k);
    k = edge ? (k == 0 ? 0 : inner_words + k) : k + 1;
    const Offsets o = offsets(store_order + 1, rank - 1, line);
    return {uint32_t(o.dst) + 4 * k, o.staged + 4 * k * line_step, int32_t(4 * k)};
  }
  // Word w of a tile whose dst origin lies at an address of `d` modulo 4 and whose stage rows
  // are shifted from `shift` (the kernel's, from src's origin): the aligned word `to` bytes
  // from the origin; its byte q is its line's byte w.first - lead + q, staged at
  // place + q * line_step.
  struct PlacedWord {
    int32_t to;
    uint32_t place, lead;
  };
  XPOSE_HD PlacedWord place(const Word& w, uint32_t d, uint32_t shift) const {
    const uint32_t lead = (d + w.to) & 3;
    return {int32_t(w.to) - int32_t(lead), (w.at & 0xfffff) + ((shift + (w.at >> 20)) & 15) - lead * line_step, lead};
  }

  // Tile `item`'s origin in src and dst, and the outer index left for the form's outer axes.
  XPOSE_HD uint32_t origin(uint32_t item, int64_t* src, int64_t* dst) const {
    int64_t s = 0, d = 0;
    for (int n = 0; n < split_rank; ++n) {
      uint32_t index;
      item = split_tiles[n].divmod(item, &index);
      const NdPackedAxis& x = axis[split[n]];
      const int64_t first = index * int64_t(x.tile), last = int64_t(x.extent - x.tile);
      const int64_t start = first < last ? first : last;
      s += start * x.src;
      d += start * x.dst;
    }
    *src = s;
    *dst = d;
    return item;
  }
};

// Tile `item`'s whole origin in src and dst: its cut axes' and the form's outer axes'.
XPOSE_HD inline void nd_packed_origin(const NdForm& f, const NdPacked& t, uint32_t item, int64_t* src, int64_t* dst) {
  int64_t s, d, os, od;
  f.outer_offsets(t.origin(item, &s, &d), &os, &od);
  *src = s + os;
  *dst = d + od;
}

// The grid: as many blocks as the GPU holds at once (at most), each moving every gridDim.x-th
// tile, so that a block's tables and first loads are paid once an SM slot, not once a few tiles.
inline uint32_t nd_packed_grid(const NdPacked& t, int64_t elem_bytes, int sm_count) {
  return uint32_t(std::min<int64_t>(
      t.items, int64_t(std::max(sm_count, 1)) * nd_packed_blocks_per_sm(t.chunks, elem_bytes, t.lines)));
}

// The tiles block `block` of `grid` moves: items block, block + grid, ... below `items` (> block).
XPOSE_HD inline uint32_t nd_packed_block_tiles(uint32_t items, uint32_t grid, uint32_t block) {
  return (items - 1 - block) / grid + 1;
}

// The bytes of the shared-memory tables a block builds before it stages anything (they share
// the tile's memory).
inline int64_t nd_packed_table_bytes(const NdPacked& t) {
  return 4 * (int64_t(t.load_row) + t.load_rest + 2 * int64_t(t.store_row) + 2 * int64_t(t.store_rest));
}

namespace packed_detail {

// The axes of a form: a, b (where tiled) and the outer ones.
inline int all_axes(const NdForm& f, PermuteAxis* out) {
  int n = 0;
  out[n++] = {f.extent_a, f.src_a, f.dst_a};
  if (f.tiled) out[n++] = {f.extent_b, f.src_b, f.dst_b};
  for (int i = 0; i < f.outer_rank; ++i)
    out[n++] = {int64_t(f.outer_extent[i].divisor), f.outer_src[i], f.outer_dst[i]};
  return n;
}

// Grows the tile along `order` (axis indices, fastest first) until its run there holds `goal`
// elements: whole axes, then the last one cut into equal tiles of about what the run still
// needs where it is longer (an axis the other side's run cut shorter grows to that). tile[x]
// == 0: axis x is not in the tile yet.
inline void grow_run(const PermuteAxis* axes, const int* order, int n, int64_t goal, int64_t* tile) {
  int64_t run = 1;
  for (int k = 0; k < n && run < goal; ++k) {
    const int x = order[k];
    const int64_t extent = axes[x].extent, need = ceil_div(goal, run);
    if (tile[x] < extent && tile[x] < need)
      tile[x] = extent <= need ? extent : ceil_div(extent, ceil_div(extent, need));
    run *= tile[x];
    if (tile[x] < extent) break;  // a cut axis ends the run
  }
}

}  // namespace packed_detail

// Whether permute_packed by chunks stores tile t as words along dst's lines (NdPacked::lines):
// 1-byte elements, dst's fastest tile axis dst-contiguous, in src's run (each line in one
// segment, its elements line_step bytes apart) and nd_packed_line_bytes long or more, its step
// not a multiple of 4 (a warp's words, 4 x line_step apart, then meet at most two to a bank)
// nor above nd_packed_line_step_max, and the words within nd_packed_word_rounds and
// nd_packed_edge_rounds a thread.
inline void nd_packed_lines(NdPacked* t, int64_t E) {
  t->lines = false;
  if (!t->chunks || E != 1) return;
  const int b = t->store_order[0];
  const NdPackedAxis& x = t->axis[b];
  const bool in_run = std::find(t->load_order, t->load_order + t->load_rank, int8_t(b)) != t->load_order + t->load_rank;
  const int64_t bytes = x.tile;
  if (!in_run || x.dst != 1 || bytes < nd_packed_line_bytes || x.staged % 4 == 0 ||
      x.staged > uint32_t(nd_packed_line_step_max))
    return;
  const int64_t lines = t->volume / x.tile, inner = bytes / 4 - 1, edge = 2 + ((bytes + 2) / 4 - bytes / 4);
  if (lines * inner > int64_t(nd_packed_threads) * nd_packed_word_rounds ||
      lines * edge > int64_t(nd_packed_threads) * nd_packed_edge_rounds)
    return;
  t->lines = true;
  t->line_elems = x.tile;
  t->line_step = x.staged;
  t->line_count = uint32_t(lines);
  t->inner_words = uint32_t(inner);
  t->edge_words = uint32_t(edge);
  t->by_inner = FastDivmod(t->inner_words);
  t->by_edge = FastDivmod(t->edge_words);
}

// Whether (and how) permute_packed stages tile t by chunks, for a src base of address `src_low`
// modulo 16 whose elements span `src_bytes`, the tile spanning `src_span` and `dst_span`
// elements past its origin: its load rows contiguous in src and at least nd_packed_chunk_row
// bytes, every element at an address of a multiple of its size (the stores read it from the
// stage whole), at most nd_packed_chunk_slots chunks a thread, two stages within 46 KiB, and a
// tile's src and dst bytes within 32-bit offsets.
inline void nd_packed_chunks(NdPacked* t, int64_t E, uintptr_t src_low, int64_t src_bytes, int64_t src_span,
                             int64_t dst_span) {
  t->chunks = false;
  int64_t contiguous = 1;
  for (int k = 0; k < t->load_rank; ++k) {
    const NdPackedAxis& a = t->axis[t->load_order[k]];
    if (a.src != contiguous) return;
    contiguous *= a.tile;
  }
  const int64_t row_bytes = int64_t(t->load_row) * E, seg_chunks = ceil_div(15 + row_bytes, 16);
  const int64_t seg_pitch = 16 * (seg_chunks | 1), stage_bytes = seg_pitch * t->load_rest;
  if (row_bytes < nd_packed_chunk_row || src_low % uintptr_t(std::min<int64_t>(E, 16)) ||
      seg_chunks * t->load_rest > int64_t(nd_packed_threads) * nd_packed_chunk_slots || 2 * stage_bytes > 46 * 1024 ||
      (src_span + 1) * E > INT32_MAX || (dst_span + 1) * E > INT32_MAX)
    return;
  t->chunks = true;
  t->seg_chunks = uint32_t(seg_chunks);
  t->by_seg_chunks = FastDivmod(t->seg_chunks);
  t->seg_pitch = uint32_t(seg_pitch);
  t->stage_bytes = uint32_t(stage_bytes);
  t->stages = uint32_t(std::min<int64_t>(nd_packed_max_stages, std::max<int64_t>(2, nd_packed_stage_budget / stage_bytes)));
  while (t->stages > 2 && t->stages * stage_bytes > 46 * 1024) --t->stages;
  t->src_low = uint32_t(src_low % 16);
  t->src_bytes = src_bytes;
  // A staged place is then the element's byte in its stage less its row's shift (its first
  // element's address modulo 16, which moves from tile to tile) in the low 20 bits, and the
  // row's src offset in bytes (modulo 16 is what the kernel reads of it) from bit 20 up.
  uint32_t row_stride = uint32_t(E), rest_stride = t->seg_pitch;
  for (int k = 0; k < t->rank; ++k) {
    NdPackedAxis& a = t->axis[t->load_order[k]];
    if (k < t->load_rank) {
      a.staged = row_stride;
      row_stride *= a.tile;
    } else {
      a.staged = rest_stride + (uint32_t(uint64_t(a.src) * uint64_t(E)) << 20);
      rest_stride *= a.tile;
    }
  }
  nd_packed_lines(t, E);
}

// Plans permute_packed for *f, or false with *why. Its outer axes become those the tile does
// not span (in the form's order). `most` (a test's) bounds a tile's elements below the kernel's.
// `src_low`: src's base address modulo 16, for chunk staging (nd_packed_chunks); -1: element by
// element.
inline bool nd_packed(NdForm* f, NdPacked* out, const char** why, int most = 0, int src_low = -1);

namespace packed_detail {

// nd_packed with tiles of at most `cap` elements and chunk staging where src_low >= 0 allows it.
inline bool nd_packed_capped(NdForm* f, NdPacked* out, const char** why, int64_t cap, int src_low) {
  const int64_t E = f->elem_bytes;
  PermuteAxis axes[16];
  const int n = all_axes(*f, axes);
  int by_src[16], by_dst[16];
  for (int i = 0; i < n; ++i) by_src[i] = by_dst[i] = i;
  std::stable_sort(by_src, by_src + n, [&](int x, int y) { return axes[x].src_stride < axes[y].src_stride; });
  std::stable_sort(by_dst, by_dst + n, [&](int x, int y) { return axes[x].dst_stride < axes[y].dst_stride; });
  // The longest run on both sides (bytes, from 512 down) whose tile fits: one element's at
  // worst.
  int64_t tile[16] = {}, volume = 1;
  int run_bytes = 0;
  for (int r = 512; !run_bytes; r /= 2) {
    std::fill(tile, tile + n, int64_t(0));
    grow_run(axes, by_src, n, std::max<int64_t>(1, r / E), tile);
    grow_run(axes, by_dst, n, std::max<int64_t>(1, r / E), tile);
    volume = 1;
    for (int x = 0; x < n; ++x) volume *= tile[x] ? tile[x] : 1;
    if (volume <= cap || r <= E) run_bytes = r;
  }
  // Whole outer axes (dst's order) while they fit; then part of the next one.
  for (int k = 0; k < n && volume < cap; ++k) {
    const int x = by_dst[k];
    if (tile[x]) continue;
    const int64_t room = cap / volume, extent = axes[x].extent;
    if (room < 2) break;
    tile[x] = extent <= room ? extent : ceil_div(extent, ceil_div(extent, room));
    volume *= tile[x];
    if (tile[x] < extent) break;
  }
  NdPacked t;
  int index_of[16];  // axis x's place in t.axis, or -1
  for (int x = 0; x < n; ++x) {
    index_of[x] = -1;
    if (!tile[x]) continue;
    if (t.rank == nd_packed_max_axes) {
      *why = "its tile would span more than 8 axes";
      return false;
    }
    if (axes[x].extent > int64_t(UINT32_MAX)) {
      *why = "its tile would span an axis of 2^32 or more elements";
      return false;
    }
    index_of[x] = t.rank;
    NdPackedAxis& a = t.axis[t.rank++];
    a.extent = uint32_t(axes[x].extent);
    a.tile = uint32_t(tile[x]);
    a.by_tile = FastDivmod(a.tile);
  }
  // Offsets inside a tile are 32-bit, and so are its axes' strides (each axis at least 2 long:
  // a stride past 32 bits, which only an axis of 1 could leave, is refused all the same).
  int64_t src_span = 0, dst_span = 0;
  for (int x = 0; x < n; ++x) {
    if (!tile[x]) continue;
    src_span += (tile[x] - 1) * axes[x].src_stride;
    dst_span += (tile[x] - 1) * axes[x].dst_stride;
    if (axes[x].src_stride > INT32_MAX || axes[x].dst_stride > INT32_MAX) src_span = int64_t(INT32_MAX) + 1;
    t.axis[index_of[x]].src = int32_t(axes[x].src_stride);
    t.axis[index_of[x]].dst = int32_t(axes[x].dst_stride);
  }
  if (src_span > INT32_MAX || dst_span > INT32_MAX) {
    *why = "a tile would span 2^31 or more elements of src or dst";
    return false;
  }
  // Each side's row: its order's axes in the tile, up to and including the first cut one;
  // the rest follow, in dst's order on the load side (dst's row axes first: the store side
  // reads them a padded row apart), in src's on the store side.
  const auto rows = [&](const int* order, int8_t* list, uint32_t* row_elems) {
    int count = 0;
    uint32_t elems = 1;
    for (int k = 0; k < n; ++k) {
      const int x = order[k];
      if (!tile[x]) break;
      list[count++] = int8_t(index_of[x]);
      elems *= uint32_t(tile[x]);
      if (tile[x] < axes[x].extent) break;
    }
    *row_elems = elems;
    return count;
  };
  t.load_rank = rows(by_src, t.load_order, &t.load_row);
  t.store_rank = rows(by_dst, t.store_order, &t.store_row);
  const auto fill_rest = [&](int8_t* list, int count, const int* order) {
    for (int k = 0; k < n; ++k) {
      const int x = order[k];
      const int8_t i = int8_t(index_of[x]);
      if (tile[x] && std::find(list, list + count, i) == list + count) list[count++] = i;
    }
  };
  fill_rest(t.load_order, t.load_rank, by_dst);
  fill_rest(t.store_order, t.store_rank, by_src);
  t.volume = uint32_t(volume);
  t.load_rest = t.volume / t.load_row;
  t.store_rest = t.volume / t.store_row;
  t.load_div = FastDivmod(t.load_row);
  t.store_div = FastDivmod(t.store_row);
  // The staged pitch: a row of more than one, padded so that a warp reading down a column of
  // the staged tile (dst's run, a pitch apart) meets 32 different banks: ld * E / 4 odd (4
  // bytes and less), ld odd (8 and 16).
  t.ld = t.load_row;
  if (t.load_rest > 1) {
    const uint32_t step = E < 4 ? uint32_t(4 / E) : 1, modulus = E < 4 ? uint32_t(8 / E) : 2;
    while (t.ld % modulus != step % modulus) ++t.ld;
  }
  if (int64_t(t.ld) * t.load_rest > 65536) {  // the kernel keeps a staged place in 16 bits
    *why = "its staged tile would hold more than 2^16 places";
    return false;
  }
  uint32_t row_stride = 1, rest_stride = t.ld;
  for (int k = 0; k < t.rank; ++k) {
    NdPackedAxis& a = t.axis[t.load_order[k]];
    uint32_t& stride = k < t.load_rank ? row_stride : rest_stride;
    a.staged = stride;
    stride *= a.tile;
  }
  // The cut axes' tile indices vary fastest from one tile to the next: first those that end
  // src's or dst's run (in src's order), so that the tiles sharing a run's partly written
  // sectors run together and the sectors meet in L2, not in DRAM; then any other cut one; then
  // the outer axes the tile does not span.
  uint64_t items = 1;
  const auto ends_run = [&](int x) {
    return index_of[x] == t.load_order[t.load_rank - 1] || index_of[x] == t.store_order[t.store_rank - 1];
  };
  for (int pass = 0; pass < 2; ++pass)
    for (int k = 0; k < n; ++k) {
      const int x = by_src[k];
      if (!tile[x] || tile[x] == axes[x].extent || ends_run(x) != (pass == 0)) continue;
      if (t.split_rank == nd_packed_max_split) {
        *why = "its tile would cut more than 3 axes";
        return false;
      }
      const uint64_t tiles = uint64_t(ceil_div(axes[x].extent, tile[x]));
      t.split[t.split_rank] = int8_t(index_of[x]);
      t.split_tiles[t.split_rank++] = FastDivmod(uint32_t(tiles));
      items *= tiles;
    }
  // The outer axes: those the tile does not span, in the form's (dst's) order.
  NdForm g = *f;
  g.outer_rank = 0;
  uint64_t outer = 1;
  for (int k = 0; k < n; ++k) {
    const int x = by_dst[k];
    if (tile[x]) continue;
    g.outer_extent[g.outer_rank] = FastDivmod(uint32_t(axes[x].extent));
    g.outer_src[g.outer_rank] = axes[x].src_stride;
    g.outer_dst[g.outer_rank++] = axes[x].dst_stride;
    outer *= uint64_t(axes[x].extent);
  }
  items *= outer;
  if (items > UINT32_MAX) {
    *why = "it holds 2^32 or more tiles";
    return false;
  }
  g.outer_count = uint32_t(outer);
  t.items = uint32_t(items);
  t.run_bytes = run_bytes;
  if (src_low >= 0) {
    int64_t src_bytes = E;
    for (int x = 0; x < n; ++x) src_bytes += (axes[x].extent - 1) * axes[x].src_stride * E;
    nd_packed_chunks(&t, E, uintptr_t(src_low), src_bytes, src_span, dst_span);
  }
  // The tile or its stages (or the tables before them) first, then the ring of two batches of
  // tile origins.
  const int64_t staged = t.chunks ? int64_t(t.stages) * t.stage_bytes : int64_t(t.ld) * t.load_rest * E;
  const int64_t tile_bytes = std::max<int64_t>(staged, nd_packed_table_bytes(t));
  t.ring_at = uint32_t(ceil_div(tile_bytes, 16) * 16);
  t.smem_bytes = t.ring_at + 2 * nd_packed_ring * 16;
  if (t.smem_bytes > 48 * 1024) {  // kernels take 48 KiB without asking
    *why = "its tables would take more than 48 KiB of shared memory";
    return false;
  }
  *f = g;
  *out = t;
  return true;
}

}  // namespace packed_detail

// By chunks where they serve (a tile of up to nd_packed_most(E, true) elements whose src rows
// take them); else element by element.
inline bool nd_packed(NdForm* f, NdPacked* out, const char** why, int most, int src_low) {
  const int64_t E = f->elem_bytes;
  const auto cap = [&](bool chunks) {
    return most > 0 ? std::min<int64_t>(most, nd_packed_most(E, chunks)) : nd_packed_most(E, chunks);
  };
  if (src_low >= 0) {
    NdForm g = *f;
    NdPacked t;
    const char* ignored = nullptr;
    if (packed_detail::nd_packed_capped(&g, &t, &ignored, cap(true), src_low) && t.chunks) {
      *f = g;
      *out = t;
      return true;
    }
  }
  return packed_detail::nd_packed_capped(f, out, why, cap(false), -1);
}

// "3 x 21/84 x 32 tiles (2016 elements, src's run 63, ...), 4 of them, element by element"
inline std::string text(const NdPacked& t) {
  const auto s = [](int64_t v) { return std::to_string(v); };
  std::string r;
  for (int k = 0; k < t.rank; ++k) {
    const NdPackedAxis& a = t.axis[t.load_order[k]];
    r += (k ? " x " : "") + s(a.tile) + (a.tile < a.extent ? "/" + s(a.extent) : "");
  }
  return r + " tiles (" + s(t.volume) + " elements, src's run " + s(t.load_row) + ", dst's " + s(t.store_row) +
         ", cut for " + s(t.run_bytes) + "-byte runs), " + s(t.items) + " of them" +
         (t.chunks ? ", src rows by 16-byte chunks, " + s(t.stages) + " stages" : ", element by element") +
         (t.lines ? ", stored as 4-byte words along dst's lines of " + s(t.line_elems) : "");
}

}  // namespace xpose::layout
