#include "options.hpp"

#include <CLI/CLI.hpp>

#include "xpose/xpose.h"
#include "xpose_commit.hpp"  // XPOSE_COMMIT, written at build time

#include <algorithm>
#include <charconv>
#include <system_error>
#include <tuple>
#include <cstdio>

namespace xpose::bench {
namespace {

std::optional<Options> fail(int* exit_code, const std::string& message) {
  print_error(message);
  *exit_code = 2;
  return std::nullopt;
}

// A count the caller wrote in decimal, refused rather than clamped when int64 cannot hold it.
std::optional<int64_t> parse_int64(const std::string& text) {
  int64_t v = 0;
  const char* end = text.data() + text.size();
  const auto [at, ec] = std::from_chars(text.data(), end, v);
  if (ec != std::errc() || at != end || text.empty()) return std::nullopt;
  return v;
}

}  // namespace

std::string one_line(const std::string& text) {
  std::string out;
  for (const char ch : text) {
    const auto c = static_cast<unsigned char>(ch);
    if (c >= 0x20 && c != 0x7f) {
      out += ch;
    } else {
      char escape[8];
      std::snprintf(escape, sizeof escape, c == '\n' ? "\\n" : c == '\t' ? "\\t" : c == '\r' ? "\\r" : "\\x%02x", c);
      out += escape;
    }
  }
  return out;
}

void print_error(const std::string& message) { std::fprintf(stderr, "xpose-bench: %s\n", one_line(message).c_str()); }

std::optional<Options> parse_options(int argc, const char* const* argv, int* exit_code) {
  Options o;
  CLI::App app{"xpose-bench: xpose's kernels and the peers (cudaMemcpyAsync, cuBLAS, cuBLASLt) timed in one run, "
               "each as a percentage of the copy ceiling measured in that run. Default: the seed ladder, fp32 "
               "32768x32768."};
  std::vector<std::string> dtypes;
  std::string shape, timing = "auto", ld_src_text, ld_dst_text;
  int64_t ld_src = 0, ld_dst = 0;
  bool sweep = false, cases = false, host_cost = false, no_peers = false, no_progress = false;
  app.add_option("--dtype", dtypes, "u8, fp8, fp16, bf16, fp32, fp64, c64, c128, or a byte size; several allowed")
      ->delimiter(',');
  auto* shape_opt = app.add_option("--shape", shape, "RxC or RxCxB (B matrices of R rows, C columns)");
  auto* ld_src_opt = app.add_option("--ld-src", ld_src_text, "src leading dimension in elements (0: cols); needs --shape");
  auto* ld_dst_opt = app.add_option("--ld-dst", ld_dst_text, "dst leading dimension in elements (0: rows); needs --shape");
  auto* sweep_opt = app.add_flag("--sweep", sweep, "square sizes 256..32768 for each --dtype (default: all sizes)");
  auto* cases_opt = app.add_flag("--cases", cases, "the named case list (docs/performance.md)");
  auto* host_opt = app.add_flag("--host-cost", host_cost,
                                "host microseconds per call for one small --shape (default 256x256) beside a bare "
                                "launch of the copy kernel");
  int random = 0;
  std::string seed_text;
  auto* random_opt = app.add_option("--random", random,
                                    "N random 2-D problems (1 MiB-2 GiB, every element size; cases.hpp says how "
                                    "they are drawn), reported as median, 10th percentile and worst % of copy")
                         ->check(CLI::Range(1, 100000));
  auto* seed_opt = app.add_option("--seed", seed_text, "--random's seed (default: a fresh one, printed)");
  auto* inplace_opt = app.add_flag("--inplace", o.inplace,
                                   "in-place transposes (xpose_transpose_inplace) beside the same-run copy of the "
                                   "matrix and xpose's out-of-place transpose: the in-place case list, or --shape / "
                                   "--random draws (64-512 MiB, square and rectangular)");
  inplace_opt->excludes(sweep_opt)->excludes(cases_opt)->excludes(host_opt)->excludes(ld_src_opt)->excludes(ld_dst_opt);
  sweep_opt->excludes(cases_opt)->excludes(shape_opt)->excludes(host_opt)->excludes(random_opt);
  cases_opt->excludes(shape_opt)->excludes(host_opt)->excludes(random_opt);
  random_opt->excludes(shape_opt)->excludes(host_opt);
  app.add_option("--kernel", o.kernels, "xpose kernel(s) to time, or 'auto' (default: the ladder and auto)")
      ->delimiter(',');
  app.add_flag("--no-peers", no_peers, "time only xpose (and the copy ceiling)");
  app.add_option("--timing", timing, "auto (graph replay when the problem fits in L2), events, or graph")
      ->check(CLI::IsMember({"auto", "events", "graph"}));
  app.add_option("--device", o.device, "gpu or cpu")->check(CLI::IsMember({"gpu", "cpu"}));
  app.add_option("--reps", o.reps, "timed runs per kernel (median reported)")->check(CLI::Range(1, 100000));
  app.add_option("--warmup", o.warmup, "untimed runs first")->check(CLI::Range(0, 1000));
  app.add_option("--rounds", o.rounds,
                 "time every row of a case this many times in turn, --reps calls each time, round r starting at row r, "
                 "and report the median of all (events; graph timing: the median of the rounds' medians)")
      ->check(CLI::Range(1, 100));
  app.add_option("--placement", o.placement,
                 "where src and dst sit: exact (allocations of their own), inside (the first half of allocations "
                 "twice as large) or offset (4 KiB into allocations 4 KiB larger); the copy ceiling uses the same")
      ->check(CLI::IsMember({"exact", "inside", "offset"}));
  app.add_flag("--check", o.check, "verify every result (xpose and peers) against the CPU reference");
  app.add_flag("--explain", o.explain, "print the automatic choice and why");
  app.add_option("--json", o.json, "append one JSON object per measurement to FILE");
  app.add_option("--csv", o.csv, "append one CSV row per measurement to FILE (header when new)");
  app.add_flag("--no-progress", no_progress, "no progress line on stderr");
  app.add_flag("--list", o.list, "print the cases as JSON lines and exit, timing nothing");
  app.add_flag("--rules", o.rules, "print the automatic choice's rule table and tuning records (markdown) and exit");
  app.set_version_flag("--version", std::string("xpose-bench ") + xpose_version() + " (commit " + XPOSE_COMMIT + ")",
                       "print the version and the commit it was built from, and exit");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == int(CLI::ExitCodes::Success)) {  // --help, --version: CLI11 prints them on stdout
      *exit_code = app.exit(e);
      return std::nullopt;
    }
    return fail(exit_code, e.what());
  }
  // Checked here, not by CLI11, whose integers saturate at INT64_MAX and whose NonNegativeNumber
  // message prints DBL_MAX in full.
  for (const auto& [opt, text, ld] : {std::tuple{ld_src_opt, &ld_src_text, &ld_src}, std::tuple{ld_dst_opt, &ld_dst_text, &ld_dst}}) {
    if (!opt->count()) continue;
    const auto v = parse_int64(*text);
    const std::string name = opt->get_name();
    if (!v) return fail(exit_code, name + ": '" + *text + "' is not a decimal integer within int64");
    if (*v < 0) return fail(exit_code, name + ": " + std::to_string(*v) + " is negative; it must be >= 0 (0: packed)");
    *ld = *v;
  }
  for (const std::string& d : dtypes)
    if (!elem_bytes_of(d)) return fail(exit_code, "unknown --dtype '" + d + "'");
  for (const auto& [name, value, what] : {std::tuple{"--json", &o.json, "a file name"},
                                          std::tuple{"--csv", &o.csv, "a file name"},
                                          std::tuple{"--shape", &shape, "RxC or RxCxB"}})
    if (app.count(name) && value->empty()) return fail(exit_code, std::string(name) + " is empty; it takes " + what);
  if ((ld_src_opt->count() || ld_dst_opt->count()) && !app.count("--shape"))
    return fail(exit_code, "--ld-src/--ld-dst apply to one --shape only");
  if (cases && !dtypes.empty()) return fail(exit_code, "--cases has its own dtypes; drop --dtype");

  if (seed_opt->count() && !random_opt->count()) return fail(exit_code, "--seed goes with --random");
  if (random_opt->count() && !dtypes.empty()) return fail(exit_code, "--random draws its own dtypes; drop --dtype");
  o.seed = fresh_seed();
  if (seed_opt->count()) {
    const auto v = parse_seed(seed_text);
    if (!v) return fail(exit_code, "--seed: '" + seed_text + "' is not a non-negative decimal integer");
    o.seed = *v;
  }

  const Timing how = timing == "graph" ? Timing::graph : timing == "events" ? Timing::events : Timing::automatic;
  if (o.inplace && (app.count("--kernel") || app.count("--placement")))
    return fail(exit_code, "--inplace times its own calls; --kernel and --placement do not apply");
  if (o.inplace && !random_opt->count() && !app.count("--shape")) {
    o.mode = Mode::cases;
    o.cases = inplace_cases();
    if (!dtypes.empty()) return fail(exit_code, "--inplace's case list has its own dtypes; drop --dtype or give --shape");
  } else if (random_opt->count()) {
    o.mode = Mode::random;
    o.cases = o.inplace ? random_inplace_cases(random, o.seed) : random_cases(random, o.seed);
    for (Case& c : o.cases) c.timing = how;
    if (o.kernels.empty()) o.kernels = {"auto"};  // the automatic choice is what the draws judge
  } else if (cases) {
    o.mode = Mode::cases;
    o.cases = case_list();
    if (how != Timing::automatic)
      for (Case& c : o.cases) c.timing = how;
  } else if (sweep) {
    o.mode = Mode::sweep;
    o.cases = sweep_cases(dtypes.empty() ? std::vector<std::string>{"u8", "fp16", "fp32", "fp64", "c128"} : dtypes);
    for (Case& c : o.cases) c.timing = how;
  } else {
    int64_t rows = host_cost ? 256 : 32768, cols = rows, batch = 1;
    if (app.count("--shape")) {
      const auto s = parse_shape(shape);
      if (!s) return fail(exit_code, "--shape '" + shape + "' is not RxC or RxCxB with positive counts");
      rows = s->rows, cols = s->cols, batch = s->batch;
      o.shape_given = true;
    }
    o.mode = host_cost ? Mode::host_cost : o.shape_given ? Mode::single : Mode::ladder;
    if (dtypes.empty()) dtypes = {"fp32"};
    for (const std::string& d : dtypes) o.cases.push_back(make_case(d, rows, cols, batch, ld_src, ld_dst, how));
  }
  if (host_cost && (o.check || app.count("--timing")))
    return fail(exit_code, "--host-cost times calls on the host; --check and --timing do not apply");
  for (const char* name : {"--kernel", "--timing", "--check", "--explain", "--host-cost", "--placement", "--rounds"})
    if (app.count(name)) o.gpu_only.push_back(name);
  o.peers = !no_peers;
  o.progress = !no_progress;
  return o;
}

}  // namespace xpose::bench
