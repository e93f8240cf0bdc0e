#include "options.hpp"

#include <CLI/CLI.hpp>

#include <algorithm>
#include <cstdio>

namespace xpose::bench {
namespace {

// One line on stderr, whatever the message holds (CLI11's can span lines; a value can too).
std::optional<Options> fail(int* exit_code, std::string message) {
  std::replace(message.begin(), message.end(), '\n', ' ');
  std::fprintf(stderr, "xpose-bench: %s\n", message.c_str());
  *exit_code = 2;
  return std::nullopt;
}

}  // namespace

std::optional<Options> parse_options(int argc, const char* const* argv, int* exit_code) {
  Options o;
  CLI::App app{"xpose-bench: xpose's kernels and the peers (cudaMemcpyAsync, cuBLAS, cuBLASLt) timed in one run, "
               "each as a percentage of the copy ceiling measured in that run. Default: the seed ladder, fp32 "
               "32768x32768."};
  std::vector<std::string> dtypes;
  std::string shape, timing = "auto";
  int64_t ld_src = 0, ld_dst = 0;
  bool sweep = false, cases = false, host_cost = false, no_peers = false, no_progress = false;
  app.add_option("--dtype", dtypes, "u8, fp8, fp16, bf16, fp32, fp64, c64, c128, or a byte size; several allowed")
      ->delimiter(',');
  auto* shape_opt = app.add_option("--shape", shape, "RxC or RxCxB (B matrices of R rows, C columns)");
  app.add_option("--ld-src", ld_src, "src leading dimension in elements (0: cols)");
  app.add_option("--ld-dst", ld_dst, "dst leading dimension in elements (0: rows)");
  auto* sweep_opt = app.add_flag("--sweep", sweep, "square sizes 256..32768 for each --dtype (default: all sizes)");
  auto* cases_opt = app.add_flag("--cases", cases, "the named case list (docs/performance.md)");
  auto* host_opt = app.add_flag("--host-cost", host_cost,
                                "host microseconds per call for one small --shape (default 256x256) beside a bare "
                                "launch of the copy kernel");
  sweep_opt->excludes(cases_opt)->excludes(shape_opt)->excludes(host_opt);
  cases_opt->excludes(shape_opt)->excludes(host_opt);
  app.add_option("--kernel", o.kernels, "xpose kernel(s) to time, or 'auto' (default: the ladder and auto)")
      ->delimiter(',');
  app.add_flag("--no-peers", no_peers, "time only xpose (and the copy ceiling)");
  app.add_option("--timing", timing, "auto (graph replay when the problem fits in L2), events, or graph")
      ->check(CLI::IsMember({"auto", "events", "graph"}));
  app.add_option("--device", o.device, "gpu or cpu")->check(CLI::IsMember({"gpu", "cpu"}));
  app.add_option("--reps", o.reps, "timed runs per kernel (median reported)")->check(CLI::Range(1, 100000));
  app.add_option("--warmup", o.warmup, "untimed runs first")->check(CLI::Range(0, 1000));
  app.add_flag("--check", o.check, "verify every result (xpose and peers) against the CPU reference");
  app.add_flag("--explain", o.explain, "print the automatic choice and why");
  app.add_option("--json", o.json, "append one JSON object per measurement to FILE");
  app.add_option("--csv", o.csv, "append one CSV row per measurement to FILE (header when new)");
  app.add_flag("--no-progress", no_progress, "no progress line on stderr");
  app.add_flag("--list", o.list, "print the cases as JSON lines and exit, timing nothing");
  app.add_flag("--rules", o.rules, "print the automatic choice's rule table and tuning records (markdown) and exit");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == int(CLI::ExitCodes::Success)) {  // --help: CLI11 prints it on stdout
      *exit_code = app.exit(e);
      return std::nullopt;
    }
    return fail(exit_code, e.what());
  }
  // Checked here, not by CLI11's NonNegativeNumber, whose message prints DBL_MAX in full.
  for (const auto& [name, ld] : {std::pair{"--ld-src", ld_src}, std::pair{"--ld-dst", ld_dst}})
    if (ld < 0)
      return fail(exit_code, std::string(name) + ": " + std::to_string(ld) + " is negative; it must be >= 0 (0: packed)");
  for (const std::string& d : dtypes)
    if (!elem_bytes_of(d)) return fail(exit_code, "unknown --dtype '" + d + "'");
  if ((ld_src || ld_dst) && (sweep || cases)) return fail(exit_code, "--ld-src/--ld-dst apply to one shape only");
  if (cases && !dtypes.empty()) return fail(exit_code, "--cases has its own dtypes; drop --dtype");

  const Timing how = timing == "graph" ? Timing::graph : timing == "events" ? Timing::events : Timing::automatic;
  if (cases) {
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
    if (!shape.empty()) {
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
  for (const char* name : {"--kernel", "--timing", "--check", "--explain", "--host-cost"})
    if (app.count(name)) o.gpu_only.push_back(name);
  o.peers = !no_peers;
  o.progress = !no_progress;
  return o;
}

}  // namespace xpose::bench
