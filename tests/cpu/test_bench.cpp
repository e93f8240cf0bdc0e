// xpose-bench's host side: option parsing, the case tables, statistics, and the JSON and
// CSV records (the fields bench/table.py and bench/plot.py read).
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <set>
#include <tuple>
#include <string>
#include <vector>

#include "cases.hpp"
#include "xpose/xpose.hpp"
#include "options.hpp"
#include "record.hpp"
#include "timer.hpp"

namespace xb = xpose::bench;

namespace {

std::optional<xb::Options> parse(std::initializer_list<const char*> args, int* exit_code) {
  std::vector<const char*> argv = {"xpose-bench"};
  argv.insert(argv.end(), args.begin(), args.end());
  *exit_code = -1;
  return xb::parse_options(int(argv.size()), argv.data(), exit_code);
}

xb::Options parse_ok(std::initializer_list<const char*> args) {
  int code = 0;
  auto o = parse(args, &code);
  EXPECT_TRUE(o.has_value()) << "exit code " << code;
  return o.value_or(xb::Options{});
}

int parse_error(std::initializer_list<const char*> args) {
  int code = 0;
  testing::internal::CaptureStderr();
  auto o = parse(args, &code);
  const std::string err = testing::internal::GetCapturedStderr();
  EXPECT_FALSE(o.has_value());
  EXPECT_FALSE(err.empty()) << "a bad argument must say what is wrong";
  EXPECT_EQ(err.find('\n'), err.size() - 1) << "one line: " << err;
  EXPECT_LT(err.size(), 200u) << err;
  return code;
}

xb::Record sample_record() {
  xb::Record r;
  r.case_label = "fp32 30011x29989 ld 29992/30012";
  r.kernel = "vec_swizzled";
  r.role = "xpose";
  r.dtype = "fp32";
  r.elem_bytes = 4, r.rows = 30011, r.cols = 29989, r.batch = 3, r.ld_src = 29992, r.ld_dst = 30012;
  r.timing = "events";
  r.ms_median = 2.5, r.ms_min = 2.25, r.ms_max = 3.125, r.gbps = 2880.5, r.pct_copy = 95.5, r.pct_peak = 85.25;
  r.check = "passed";
  r.device = "NVIDIA H100 80GB HBM3";
  r.commit = "abc1234";
  r.date = "2026-11-22";
  r.placement = "inside";
  return r;
}

std::string temp_path(const std::string& name) {
  const auto dir = std::filesystem::temp_directory_path() / ("xpose_bench_test_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const auto path = dir / name;
  std::filesystem::remove(path);
  return path.string();
}

std::vector<std::string> lines_of(const std::string& path) {
  std::ifstream in(path);
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

}  // namespace

TEST(BenchCases, DtypesAndShapes) {
  EXPECT_EQ(xb::elem_bytes_of("u8"), 1);
  EXPECT_EQ(xb::elem_bytes_of("uint8"), 1);
  EXPECT_EQ(xb::elem_bytes_of("bf16"), 2);
  EXPECT_EQ(xb::elem_bytes_of("c64"), 8);
  EXPECT_EQ(xb::elem_bytes_of("c128"), 16);
  EXPECT_EQ(xb::elem_bytes_of("16"), 16);
  EXPECT_FALSE(xb::elem_bytes_of("3").has_value());
  EXPECT_FALSE(xb::elem_bytes_of("float").has_value());
  EXPECT_EQ(xb::canonical_dtype("uint8"), "u8");

  const auto s = xb::parse_shape("4096x128x256");
  ASSERT_TRUE(s.has_value());
  EXPECT_EQ(s->rows, 4096);
  EXPECT_EQ(s->cols, 128);
  EXPECT_EQ(s->batch, 256);
  EXPECT_EQ(xb::parse_shape("7x9")->batch, 1);
  for (const char* bad : {"", "7", "7x", "x7", "7xx9", "0x9", "7x0", "7x9x0", "1x2x3x4", "7x-9", "7 x9", "axb",
                          "1234567890123456789x2"})
    EXPECT_FALSE(xb::parse_shape(bad).has_value()) << bad;
}

TEST(BenchCases, LabelsSayWhatIsMeasured) {
  EXPECT_EQ(xb::make_case("fp32", 30011, 29989, 1, 29992, 30012).label, "fp32 30011x29989 ld 29992/30012");
  EXPECT_EQ(xb::make_case("bf16", 4096, 128, 256).label, "bf16 batched 256x4096x128");
  EXPECT_EQ(xb::make_case("uint8", 65536, 65536).label, "u8 65536x65536");
  EXPECT_EQ(xb::make_case("fp32", 7, 9, 1, 0, 12).label, "fp32 7x9 ld 9/12");
}

TEST(BenchCases, TheCaseListIsTheIssuesList) {
  const auto cases = xb::case_list();
  ASSERT_EQ(cases.size(), 18u);
  std::set<std::string> labels;
  for (const xb::Case& c : cases) {
    EXPECT_TRUE(labels.insert(c.label).second) << "duplicate " << c.label;
    EXPECT_GT(c.elem_bytes, 0) << c.label;
    EXPECT_EQ(c.timing == xb::Timing::graph, &c >= &cases[15]) << c.label;
  }
  for (const char* want : {"fp32 32768x32768", "fp16 32768x32768", "u8 32768x32768", "fp64 16384x16384",
                           "c128 8192x8192", "fp32 30011x29989", "fp32 30011x29989 ld 29992/30012",
                           "fp32 8191x12289", "fp32 2x268435456", "fp32 268435456x2", "fp32 3x100000000",
                           "bf16 batched 256x4096x128", "bf16 batched 4096x128x4096", "u8 batched 256x4096x128",
                           "u8 65536x65536", "fp32 1024x1024", "fp32 4096x4096", "bf16 1000x3000"})
    EXPECT_TRUE(labels.count(want)) << want;
}

TEST(BenchCases, SweepAndTimingChoice) {
  const auto cases = xb::sweep_cases({"fp16", "c128"});
  ASSERT_EQ(cases.size(), 16u);
  EXPECT_EQ(cases.front().rows, 256);
  EXPECT_EQ(cases[7].rows, 32768);
  EXPECT_EQ(cases[8].dtype, "c128");
  xb::Case c = xb::make_case("fp32", 1024, 1024);
  EXPECT_TRUE(xb::graph_timed(c, 8 << 20, 50 << 20));
  EXPECT_FALSE(xb::graph_timed(c, int64_t(101) << 20, 50 << 20));
  c.timing = xb::Timing::events;
  EXPECT_FALSE(xb::graph_timed(c, 8 << 20, 50 << 20));
  c.timing = xb::Timing::graph;
  EXPECT_TRUE(xb::graph_timed(c, int64_t(1) << 34, 50 << 20));
}

TEST(BenchOptions, DefaultIsTheFp32Ladder) {
  const xb::Options o = parse_ok({});
  EXPECT_EQ(o.mode, xb::Mode::ladder);
  ASSERT_EQ(o.cases.size(), 1u);
  EXPECT_EQ(o.cases[0].label, "fp32 32768x32768");
  EXPECT_FALSE(o.shape_given);
  EXPECT_TRUE(o.peers);
  EXPECT_TRUE(o.kernels.empty());
  EXPECT_FALSE(o.check);
  EXPECT_EQ(o.reps, 20);
}

// --rounds' order: every row once a round, round r starting at row r.
TEST(BenchTimer, RoundsTakeEveryRowOnceARoundEachFirstInTurn) {
  std::vector<size_t> order;
  xb::in_rounds(3, 4, [&](size_t i) { order.push_back(i); });
  EXPECT_EQ((std::vector<size_t>{0, 1, 2, 1, 2, 0, 2, 0, 1, 0, 1, 2}), order);
  order.clear();
  xb::in_rounds(2, 1, [&](size_t i) { order.push_back(i); });
  EXPECT_EQ((std::vector<size_t>{0, 1}), order);
}

TEST(BenchOptions, OneShape) {
  const xb::Options o = parse_ok({"--dtype", "bf16", "--shape", "100x200x3", "--ld-src", "256", "--ld-dst", "128",
                                  "--kernel", "smem,auto", "--check", "--json", "a.jsonl", "--csv", "a.csv",
                                  "--no-peers", "--timing", "graph", "--reps", "5", "--warmup", "0", "--rounds", "3"});
  EXPECT_EQ(o.mode, xb::Mode::single);
  ASSERT_EQ(o.cases.size(), 1u);
  const xb::Case& c = o.cases[0];
  EXPECT_EQ(c.dtype, "bf16");
  EXPECT_EQ(c.elem_bytes, 2);
  EXPECT_EQ(c.rows, 100);
  EXPECT_EQ(c.cols, 200);
  EXPECT_EQ(c.batch, 3);
  EXPECT_EQ(c.ld_src, 256);
  EXPECT_EQ(c.ld_dst, 128);
  EXPECT_EQ(c.timing, xb::Timing::graph);
  EXPECT_TRUE(o.shape_given);
  EXPECT_EQ(o.kernels, (std::vector<std::string>{"smem", "auto"}));
  EXPECT_TRUE(o.check);
  EXPECT_FALSE(o.peers);
  EXPECT_EQ(o.json, "a.jsonl");
  EXPECT_EQ(o.csv, "a.csv");
  EXPECT_EQ(o.reps, 5);
  EXPECT_EQ(o.warmup, 0);
  EXPECT_EQ(o.rounds, 3);
}

TEST(BenchOptions, SweepAndCases) {
  xb::Options o = parse_ok({"--sweep"});
  EXPECT_EQ(o.mode, xb::Mode::sweep);
  EXPECT_EQ(o.cases.size(), 40u);
  o = parse_ok({"--sweep", "--dtype", "fp32,u8"});
  ASSERT_EQ(o.cases.size(), 16u);
  EXPECT_EQ(o.cases[8].dtype, "u8");
  o = parse_ok({"--cases", "--check", "--no-progress"});
  EXPECT_EQ(o.mode, xb::Mode::cases);
  EXPECT_EQ(o.cases.size(), xb::case_list().size());
  EXPECT_FALSE(o.progress);
  o = parse_ok({"--cases", "--timing", "events"});
  for (const xb::Case& c : o.cases) EXPECT_EQ(c.timing, xb::Timing::events);
}

TEST(BenchOptions, BadArgumentsFailWithAMessage) {
  EXPECT_EQ(parse_error({"--dtype", "fp7"}), 2);
  EXPECT_EQ(parse_error({"--shape", "0x5"}), 2);
  EXPECT_EQ(parse_error({"--shape", "5x"}), 2);
  EXPECT_EQ(parse_error({"--shape", "1x2x3x4"}), 2);
  EXPECT_EQ(parse_error({"--cases", "--dtype", "fp32"}), 2);
  EXPECT_EQ(parse_error({"--sweep", "--ld-src", "300"}), 2);
  // The checks CLI11 makes itself answer the same way.
  EXPECT_EQ(parse_error({"--sweep", "--cases"}), 2);
  EXPECT_EQ(parse_error({"--sweep", "--shape", "8x8"}), 2);
  EXPECT_EQ(parse_error({"--timing", "sometimes"}), 2);
  EXPECT_EQ(parse_error({"--reps", "0"}), 2);
  EXPECT_EQ(parse_error({"--reps", "abc"}), 2);
  EXPECT_EQ(parse_error({"--rounds", "0"}), 2);
  EXPECT_EQ(parse_error({"--ld-src", "-1"}), 2);
  EXPECT_EQ(parse_error({"--ld-dst", "abc"}), 2);
  EXPECT_EQ(parse_error({"--device", "tpu"}), 2);
  EXPECT_EQ(parse_error({"--placement", "nowhere"}), 2);
  EXPECT_EQ(parse_error({"--frobnicate"}), 2);
  EXPECT_EQ(parse_error({"--json"}), 2);
  EXPECT_EQ(parse_error({"stray"}), 2);
}

TEST(BenchOptions, GpuOnlyOptionsAreNamed) {
  EXPECT_TRUE(parse_ok({"--shape", "8x8"}).gpu_only.empty());
  EXPECT_EQ(parse_ok({"--shape", "8x8"}).placement, "exact");
  const xb::Options inside = parse_ok({"--random", "3", "--placement", "inside"});
  EXPECT_EQ(inside.placement, "inside");
  EXPECT_EQ(inside.gpu_only, (std::vector<std::string>{"--placement"}));
  EXPECT_EQ(parse_ok({"--explain", "--timing", "auto", "--check"}).gpu_only,
            (std::vector<std::string>{"--timing", "--check", "--explain"}));
}

TEST(BenchOptions, HelpExitsZero) {
  int code = -1;
  testing::internal::CaptureStdout();
  const auto o = parse({"--help"}, &code);
  const std::string out = testing::internal::GetCapturedStdout();
  EXPECT_FALSE(o.has_value());
  EXPECT_EQ(code, 0);
  EXPECT_NE(out.find("--cases"), std::string::npos);
}

TEST(BenchStats, MedianMinMax) {
  const xb::Stats odd = xb::summarize({5, 1, 3});
  EXPECT_EQ(odd.median, 3);
  EXPECT_EQ(odd.min, 1);
  EXPECT_EQ(odd.max, 5);
  const xb::Stats even = xb::summarize({4, 1, 3, 10});
  EXPECT_EQ(even.median, 3.5);
  EXPECT_EQ(even.max, 10);
}

TEST(BenchRecord, JsonHasEveryFieldAndRoundTrips) {
  const xb::Record r = sample_record();
  const nlohmann::json j = xb::to_json(r);
  for (const char* field : {"case",     "kernel", "role",   "dtype",     "elem_bytes", "rows",   "cols",     "batch",
                            "ld_src",   "ld_dst", "timing", "ms_median", "ms_min",     "ms_max", "gbps",     "pct_copy",
                            "pct_peak", "check",  "device", "commit",    "date",       "chosen", "rule", "placement",
                            "extra_bytes"})
    EXPECT_TRUE(j.contains(field)) << field;
  EXPECT_EQ(j["rows"], 30011);
  EXPECT_EQ(j["ms_max"], 3.125);
  EXPECT_EQ(j["device"], "NVIDIA H100 80GB HBM3");
  const xb::Record back = xb::record_from_json(nlohmann::json::parse(j.dump()));
  EXPECT_EQ(xb::to_json(back), j);
  nlohmann::json missing = j;
  missing.erase("gbps");
  EXPECT_THROW(xb::record_from_json(missing), nlohmann::json::exception);
}

TEST(BenchRecord, CaseListLines) {
  const xb::Options o = parse_ok({"--cases", "--list"});
  EXPECT_TRUE(o.list);
  const nlohmann::json j = xb::to_json(o.cases[6]);
  EXPECT_EQ(j["case"], "fp32 30011x29989 ld 29992/30012");
  EXPECT_EQ(j["ld_src"], 29992);
  EXPECT_EQ(j["ld_dst"], 30012);
  EXPECT_EQ(j["timing"], "auto");
  EXPECT_EQ(xb::to_json(o.cases.back())["timing"], "graph");
  EXPECT_EQ(xb::to_json(o.cases[11])["batch"], 256);
}

TEST(BenchRecord, CsvRowsMatchTheHeaderAndQuote) {
  xb::Record r = sample_record();
  EXPECT_EQ(xb::csv_header(),
            "case,kernel,role,dtype,elem_bytes,rows,cols,batch,ld_src,ld_dst,timing,ms_median,ms_min,ms_max,gbps,"
            "pct_copy,pct_peak,check,device,commit,date,chosen,rule,placement,extra_bytes");
  EXPECT_EQ(xb::csv_row(r),
            "fp32 30011x29989 ld 29992/30012,vec_swizzled,xpose,fp32,4,30011,29989,3,29992,30012,events,2.5,2.25,"
            "3.125,2880.5,95.5,85.25,passed,NVIDIA H100 80GB HBM3,abc1234,2026-11-22,,,inside,0");
  r.device = "GPU \"A\", rev 2";
  const std::string row = xb::csv_row(r);
  EXPECT_NE(row.find(",\"GPU \"\"A\"\", rev 2\","), std::string::npos) << row;
}

TEST(BenchRecord, WriterAppendsJsonLinesAndOneCsvHeader) {
  const std::string json = temp_path("out.jsonl"), csv = temp_path("out.csv");
  xb::Record r = sample_record();
  {
    xb::RecordWriter w(json, csv);
    w.write(r);
  }
  {
    xb::RecordWriter w(json, csv);  // a second run appends
    r.kernel = "auto";
    w.write(r);
  }
  const auto json_lines = lines_of(json);
  ASSERT_EQ(json_lines.size(), 2u);
  EXPECT_EQ(nlohmann::json::parse(json_lines[0])["kernel"], "vec_swizzled");
  EXPECT_EQ(xb::record_from_json(nlohmann::json::parse(json_lines[1])).kernel, "auto");
  const auto csv_lines = lines_of(csv);
  ASSERT_EQ(csv_lines.size(), 3u);
  EXPECT_EQ(csv_lines[0], xb::csv_header());
  EXPECT_EQ(csv_lines[2].substr(0, csv_lines[2].find(',', csv_lines[2].find(',') + 1)),
            "fp32 30011x29989 ld 29992/30012,auto");
  EXPECT_THROW(xb::RecordWriter("/nonexistent-dir/x.jsonl", ""), std::runtime_error);
  EXPECT_THROW(xb::RecordWriter("", "/nonexistent-dir/x.csv"), std::runtime_error);
}

TEST(BenchRecord, WriterSaysWhenAWriteFails) {
  try {  // since 4de1f82 /dev/full is refused when it is opened, before any record
    xb::RecordWriter w("/dev/full", "");
    w.write(sample_record());
    ADD_FAILURE() << "a record written to /dev/full must throw";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("cannot write --json file '/dev/full'"), std::string::npos) << e.what();
  }
}

namespace xpose::bench {
namespace {

// The random draws: the same list for the same seed, another for another, inside the stated
// distribution, every problem one the library accepts.
TEST(BenchRandom, DrawsAreReproducibleAndInsideTheirDistribution) {
  const std::vector<Case> a = random_cases(400, 7), b = random_cases(400, 7), c = random_cases(400, 8);
  ASSERT_EQ(400u, a.size());
  int aligned = 0, padded = 0, batched = 0;
  std::set<int64_t> sizes;
  for (size_t i = 0; i < a.size(); ++i) {
    SCOPED_TRACE(a[i].label);
    EXPECT_EQ(a[i].label, b[i].label);
    EXPECT_EQ(0u, a[i].label.rfind("random " + std::to_string(i) + " of seed 7: ", 0));
    const double bytes = double(a[i].rows) * double(a[i].cols) * double(a[i].batch) * double(a[i].elem_bytes);
    EXPECT_GE(bytes, double(1 << 20));
    EXPECT_LE(bytes, double(int64_t(2) << 30));
    EXPECT_GE(a[i].rows, 1);
    EXPECT_LE(a[i].rows, 65536 + 1);
    EXPECT_LE(a[i].cols, 65536 + 1);
    sizes.insert(a[i].elem_bytes);
    aligned += (a[i].cols * a[i].elem_bytes) % 128 == 0;
    padded += a[i].ld_src != 0;
    batched += a[i].batch > 1;
    EXPECT_NO_THROW(xpose::resolve(a[i].elem_bytes, xpose::Shape{a[i].rows, a[i].cols, a[i].ld_src, a[i].ld_dst,
                                                                  a[i].batch}));
  }
  EXPECT_EQ(5u, sizes.size());
  EXPECT_GT(aligned, 80);
  EXPECT_GT(padded, 60);
  EXPECT_GT(batched, 40);
  int same = 0;
  for (size_t i = 0; i < a.size(); ++i) same += a[i].rows == c[i].rows && a[i].cols == c[i].cols;
  EXPECT_LT(same, 40);
}

TEST(BenchRandom, SpreadIsMedianTenthPercentileAndWorst) {
  std::vector<std::pair<std::string, double>> pct;
  for (int i = 1; i <= 20; ++i) pct.push_back({"p" + std::to_string(i), double(101 - i)});  // 100 .. 81
  const Spread s = spread_of(pct, 3);
  EXPECT_EQ(20, s.count);
  EXPECT_DOUBLE_EQ(90.5, s.median);
  EXPECT_DOUBLE_EQ(82.0, s.p10);  // the 2nd lowest of 20
  EXPECT_DOUBLE_EQ(81.0, s.worst);
  ASSERT_EQ(3u, s.lowest.size());
  EXPECT_EQ("p20", s.lowest[0].first);
  EXPECT_EQ("p18", s.lowest[2].first);
  EXPECT_EQ(0, spread_of({}).count);
  EXPECT_DOUBLE_EQ(70.0, spread_of({{"one", 70.0}}).p10);
}

TEST(BenchRandom, SeedsAreAnyUint64AndTheReportSaysWhatItFound) {
  EXPECT_EQ(18446744073709551615ull, parse_seed("18446744073709551615"));  // a fresh seed may be this large
  EXPECT_EQ(0u, parse_seed("0"));
  for (const char* bad : {"", "-1", "12x", "18446744073709551616", " 4"}) EXPECT_FALSE(parse_seed(bad)) << bad;
  EXPECT_NE(fresh_seed(), fresh_seed());
  const std::string text = spread_report({{"a", 90.0}, {"b", 80.0}}, {{"b", 3.25}}, "problems", 9, "cuBLAS", true);
  EXPECT_EQ(0u, text.find("\n== random: 2 problems, seed 9: the automatic choice at median 85.0%, 10th percentile "
                          "80.0%, worst 80.0% of the same-run copy ceiling\n")) << text;
  EXPECT_NE(std::string::npos, text.find("    80.0%  b\n    90.0%  a\n")) << text;
  EXPECT_NE(std::string::npos, text.find("  behind cuBLAS by 3.2 points: b\n")) << text;
  EXPECT_NE(std::string::npos, spread_report({{"a", 90.0}}, {}, "x", 1, "cuBLAS", true).find("ahead of cuBLAS"));
  EXPECT_EQ(std::string::npos, spread_report({{"a", 90.0}}, {}, "x", 1, "cuTENSOR", false).find("ahead"));
}

TEST(BenchOptions, RandomTakesASeedOrDrawsOne) {
  int code = -1;
  const char* large[] = {"xpose-bench", "--random", "2", "--seed", "18446744073709551615"};
  const auto big = parse_options(5, large, &code);
  ASSERT_TRUE(big);
  EXPECT_EQ(18446744073709551615ull, big->seed);  // every seed a run prints draws its problems again
  const char* given[] = {"xpose-bench", "--random", "12", "--seed", "42"};
  auto o = parse_options(5, given, &code);
  ASSERT_TRUE(o);
  EXPECT_EQ(Mode::random, o->mode);
  EXPECT_EQ(42u, o->seed);
  ASSERT_EQ(12u, o->cases.size());
  EXPECT_EQ(random_cases(12, 42)[5].label, o->cases[5].label);
  const char* fresh[] = {"xpose-bench", "--random", "3"};
  auto f1 = parse_options(3, fresh, &code), f2 = parse_options(3, fresh, &code);
  ASSERT_TRUE(f1 && f2);
  EXPECT_NE(f1->seed, f2->seed);
  for (const std::vector<const char*>& bad : std::vector<std::vector<const char*>>{
           {"xpose-bench", "--seed", "4"},
           {"xpose-bench", "--random", "0"},
           {"xpose-bench", "--random", "5", "--seed", "-1"},
           {"xpose-bench", "--random", "5", "--cases"},
           {"xpose-bench", "--random", "5", "--dtype", "fp32"}}) {
    SCOPED_TRACE(bad[1]);
    EXPECT_FALSE(parse_options(int(bad.size()), bad.data(), &code));
    EXPECT_EQ(2, code);
  }
}

}  // namespace
}  // namespace xpose::bench

namespace xpose::bench {
namespace {

TEST(BenchRandom, PermutationDrawsAreReproducibleAndInsideTheirDistribution) {
  const std::vector<PermuteCase> a = random_permutations(300, 5), b = random_permutations(300, 5);
  std::set<int64_t> sizes;
  std::set<size_t> ranks;
  for (size_t i = 0; i < a.size(); ++i) {
    SCOPED_TRACE(a[i].what);
    EXPECT_EQ(a[i].extents, b[i].extents);
    EXPECT_EQ(a[i].perm, b[i].perm);
    EXPECT_EQ("random " + std::to_string(i) + " of seed 5", a[i].what);
    double bytes = double(a[i].elem_bytes);
    for (int64_t e : a[i].extents) {
      EXPECT_GE(e, 2);
      EXPECT_LE(e, 4096);
      bytes *= double(e);
    }
    EXPECT_GE(bytes, double(16 << 20));
    EXPECT_LE(bytes, double(512 << 20));
    std::vector<int> sorted = a[i].perm;
    std::sort(sorted.begin(), sorted.end());
    for (size_t k = 0; k < sorted.size(); ++k) EXPECT_EQ(int(k), sorted[k]);
    EXPECT_NE(sorted, a[i].perm) << "the identity is not a permutation worth timing";
    sizes.insert(a[i].elem_bytes);
    ranks.insert(a[i].extents.size());
  }
  EXPECT_EQ(5u, sizes.size());
  EXPECT_EQ((std::set<size_t>{2, 3, 4, 5, 6}), ranks);
}

TEST(BenchRandom, QuantizationDrawsAreReproducibleAndInsideTheirDistribution) {
  const std::vector<QuantizeDraw> a = random_quantizations(400, 11, 5, 3), b = random_quantizations(400, 11, 5, 3),
                                  c = random_quantizations(400, 12, 5, 3);
  ASSERT_EQ(400u, a.size());
  std::set<std::string> inputs;
  std::set<int> recipes, outputs;
  int aligned = 0, same = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    SCOPED_TRACE(a[i].what);
    EXPECT_EQ("random " + std::to_string(i) + " of seed 11", a[i].what);
    EXPECT_EQ(std::tie(a[i].input, a[i].rows, a[i].cols, a[i].recipe, a[i].outputs),
              std::tie(b[i].input, b[i].rows, b[i].cols, b[i].recipe, b[i].outputs));
    const double bytes = double(a[i].rows) * double(a[i].cols) * (a[i].input == "fp32" ? 4 : 2);
    EXPECT_GE(bytes, double(32 << 20));
    EXPECT_LE(bytes, double(int64_t(1) << 30));
    EXPECT_GE(a[i].rows, 1);
    EXPECT_LE(a[i].rows, 65536 + 1);
    EXPECT_GE(a[i].cols, 128);
    EXPECT_LE(a[i].cols, 65536 + 1);
    EXPECT_TRUE(a[i].rows % 128 == 0 || a[i].rows % 2 == 1);
    EXPECT_TRUE(a[i].cols % 128 == 0 || a[i].cols % 2 == 1);
    aligned += a[i].cols % 128 == 0;
    inputs.insert(a[i].input), recipes.insert(a[i].recipe), outputs.insert(a[i].outputs);
    same += a[i].rows == c[i].rows && a[i].cols == c[i].cols;
  }
  EXPECT_EQ((std::set<std::string>{"bf16", "fp16", "fp32"}), inputs);
  EXPECT_EQ((std::set<int>{0, 1, 2, 3, 4}), recipes);
  EXPECT_EQ((std::set<int>{0, 1, 2}), outputs);
  EXPECT_GT(aligned, 120);
  EXPECT_LT(aligned, 280);
  EXPECT_LT(same, 40);
}

}  // namespace
}  // namespace xpose::bench

namespace xpose::bench {
namespace {

TEST(BenchRandom, InplaceDrawsAreReproducibleAndInsideTheirDistribution) {
  const std::vector<Case> a = random_inplace_cases(400, 3), b = random_inplace_cases(400, 3);
  int square = 0, skinny = 0, batched = 0, odd = 0;
  std::set<int64_t> sizes;
  for (size_t i = 0; i < a.size(); ++i) {
    SCOPED_TRACE(a[i].label);
    EXPECT_EQ(a[i].label, b[i].label);
    EXPECT_EQ(0u, a[i].label.rfind("random " + std::to_string(i) + " of seed 3: ", 0));
    const double bytes = double(a[i].rows) * double(a[i].cols) * double(a[i].batch) * double(a[i].elem_bytes);
    EXPECT_GE(bytes, double(64 << 20));
    EXPECT_LE(bytes, double(int64_t(512) << 20));
    EXPECT_EQ(0, a[i].ld_src);
    EXPECT_EQ(0, a[i].ld_dst);
    sizes.insert(a[i].elem_bytes);
    square += a[i].rows == a[i].cols;
    skinny += std::min(a[i].rows, a[i].cols) <= 32;
    batched += a[i].batch > 1;
    odd += a[i].rows % 2 == 1;
  }
  EXPECT_EQ(5u, sizes.size());
  EXPECT_GT(square, 150);
  EXPECT_GT(skinny, 25);
  EXPECT_GT(batched, 50);
  EXPECT_GT(odd, 150);
  for (const Case& c : inplace_cases()) {
    SCOPED_TRACE(c.label);
    EXPECT_GE(double(c.rows) * double(c.cols) * double(c.batch) * double(c.elem_bytes), double(64 << 20));
  }
}

TEST(BenchOptions, InplaceTakesItsListAShapeOrDraws) {
  EXPECT_EQ(inplace_cases().size(), parse_ok({"--inplace"}).cases.size());
  EXPECT_TRUE(parse_ok({"--inplace"}).inplace);
  const Options one = parse_ok({"--inplace", "--shape", "300x500x2", "--dtype", "c128"});
  ASSERT_EQ(1u, one.cases.size());
  EXPECT_EQ(16, one.cases[0].elem_bytes);
  EXPECT_EQ(Mode::random, parse_ok({"--inplace", "--random", "4", "--seed", "9"}).mode);
  EXPECT_EQ(random_inplace_cases(4, 9)[3].label, parse_ok({"--inplace", "--random", "4", "--seed", "9"}).cases[3].label);
  EXPECT_EQ(2, parse_error({"--inplace", "--cases"}));
  EXPECT_EQ(2, parse_error({"--inplace", "--kernel", "vec_swizzled"}));
  EXPECT_EQ(2, parse_error({"--inplace", "--dtype", "u8"}));
  EXPECT_EQ(2, parse_error({"--inplace", "--shape", "8x8", "--ld-src", "9"}));
}

}  // namespace
}  // namespace xpose::bench
