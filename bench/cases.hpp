// What xpose-bench measures: each problem is a Case (data, not code), and a run is a list
// of them: the ladder, a size sweep, or the named case list of the benchmark issue.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace xpose::bench {

// How a case is timed. Events: each call on its own between two events (L2 flushed when
// the problem would sit in it). Graph: many calls captured in one CUDA graph and replayed,
// time per call, for small problems whose cost launch gaps would otherwise dominate.
enum class Timing { automatic, events, graph };

struct Case {
  std::string label;       // what tables and plots call it, e.g. "fp32 30011x29989 ld 29992/30012"
  std::string dtype;       // as the user spells it: u8, fp16, bf16, fp32, fp64, c64, c128, or bytes
  int64_t elem_bytes = 4;
  int64_t rows = 0, cols = 0, batch = 1;
  int64_t ld_src = 0, ld_dst = 0;  // 0: packed
  Timing timing = Timing::automatic;
};

// Element size for a dtype name or a byte count ("1", "2", "4", "8", "16").
std::optional<int64_t> elem_bytes_of(const std::string& dtype);

// The canonical name of a dtype ("uint8" -> "u8", "4" -> "4").
std::string canonical_dtype(const std::string& dtype);

// Parses "RxC" or "RxCxB" (positive counts); nullopt when malformed.
struct ShapeText {
  int64_t rows, cols, batch;
};
std::optional<ShapeText> parse_shape(const std::string& text);

// A case for one problem; its label is derived from the fields.
Case make_case(const std::string& dtype, int64_t rows, int64_t cols, int64_t batch = 1, int64_t ld_src = 0,
               int64_t ld_dst = 0, Timing timing = Timing::automatic);

// The ladder's problem: fp32 32768x32768.
Case ladder_case();

// Square sizes 256, 512, ..., 32768 for each dtype.
std::vector<Case> sweep_cases(const std::vector<std::string>& dtypes);

// The benchmark issue's case list (big squares per element size, odd and padded shapes,
// skinny, batched, huge, and graph-timed small problems).
std::vector<Case> case_list();

// `count` random 2-D problems from `seed` (the draws read the generator's bits themselves, not
// through std's distributions, whose results differ between standard libraries). Element size uniform over 1, 2, 4, 8 and 16 bytes; rows and
// cols log-uniform over 1-65536, each side half the time a multiple of 128 bytes (aligned)
// and else odd; a third with padded leading dimensions (1-64 elements past the extent); a
// quarter batched (2-64 matrices); redrawn until the problem holds 1 MiB to 2 GiB. Labels
// begin "random <i> of seed <seed>: " (so every record says how to draw it again).
std::vector<Case> random_cases(int count, uint64_t seed);

// xpose-bench --inplace's case list: square matrices of 64 MiB or more of every element size,
// their sides aligned and odd; rectangular ones from 2:1 to 1000:1, skinny (3-32 columns) and
// batched.
std::vector<Case> inplace_cases();

// `count` random in-place problems from `seed`: element size uniform over 1-16 bytes; half
// square, half rectangular with a ratio log-uniform over 2-1000 (either side the longer; a
// quarter of those skinny, a side of 2-32); sides odd, prime-ish (odd and not a multiple of 3 or
// 5) or multiples of 128 bytes; a fifth batched (2-8 matrices); redrawn until the problem holds
// 64-512 MiB. Labels begin "random <i> of seed <seed>: ".
std::vector<Case> random_inplace_cases(int count, uint64_t seed);

// One N-D permutation of xpose-permute-bench: src's extents and the permutation (numpy's).
struct PermuteCase {
  std::string what;  // the layout change, in words ("" for a drawn or given one)
  std::string dtype;
  int64_t elem_bytes = 0;
  std::vector<int64_t> extents;
  std::vector<int> perm;
};

// `count` random permutations from `seed`: element size uniform over 1-16 bytes, rank 2-6,
// any permutation but the identity, extents log-uniform over 2-4096, redrawn until the tensor
// holds 16-512 MiB. `what` is "random <i> of seed <seed>".
std::vector<PermuteCase> random_permutations(int count, uint64_t seed);

// One FP8 quantization of xpose-quantize-bench: x's shape and type, and which of the bench's
// recipes and output sets (indices into its tables).
struct QuantizeDraw {
  std::string what;   // "random <i> of seed <seed>"
  std::string input;  // fp32, bf16 or fp16
  int64_t rows = 0, cols = 0;
  int recipe = 0, outputs = 0;
};

// `count` random quantizations from `seed`: input uniform over fp32, bf16 and fp16, recipe
// uniform over `recipes`, output set over `outputs`; rows (tokens) log-uniform over 1-65536 and
// cols (width) over 256-65536, each half the time a multiple of 128 and else odd; redrawn until
// x holds 32 MiB to 1 GiB.
std::vector<QuantizeDraw> random_quantizations(int count, uint64_t seed, int recipes, int outputs);

// A random report: of labelled % of the copy ceiling, the median, the 10th
// percentile (nearest rank) and the worst, and the `listed` worst ones, lowest first.
struct Spread {
  int count = 0;
  double median = 0, p10 = 0, worst = 0;
  std::vector<std::pair<std::string, double>> lowest;
};
Spread spread_of(std::vector<std::pair<std::string, double>> labelled_pct, size_t listed = 10);

// The random report of both benches: "== random: <count> <what>, seed S: ..." with the
// median, 10th percentile and worst, the lowest ten, and each draw `peer` won (label, points
// ahead of the automatic choice); `claim_ahead`: say so where it won none.
std::string spread_report(const std::vector<std::pair<std::string, double>>& labelled_pct,
                          const std::vector<std::pair<std::string, double>>& peer_ahead, const std::string& what,
                          uint64_t seed, const std::string& peer, bool claim_ahead);

// --random's seed: a fresh one (64 bits of std::random_device), or the one given (a decimal
// uint64; nullopt where the text is not one).
uint64_t fresh_seed();
std::optional<uint64_t> parse_seed(const std::string& text);
// The same from --seed's text, empty where it was not given: a fresh seed then.
std::optional<uint64_t> seed_or_fresh(const std::string& text);

// Resolves Timing::automatic: graph replay when src and dst together fit twice in L2.
bool graph_timed(const Case& c, int64_t working_set_bytes, int64_t l2_bytes);

}  // namespace xpose::bench
