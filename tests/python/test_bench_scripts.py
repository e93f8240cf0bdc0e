"""bench/table.py and bench/results.py on records written the way xpose-bench and peers.py write them,
and how bench/table.py, plot.py and peers.py fail: one line on stderr, a non-zero status, no traceback."""
import io
import json
import os
import stat
import subprocess
import sys
import tempfile
import unittest
from contextlib import redirect_stderr, redirect_stdout

BENCH_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "bench")
sys.path.insert(0, BENCH_DIR)
import results  # noqa: E402
import table  # noqa: E402


def record(case, kernel, role, pct, gbps=None, timing="events", ms=1.0):
    return {"case": case, "kernel": kernel, "role": role, "dtype": "fp32", "elem_bytes": 4, "rows": 8, "cols": 8,
            "batch": 1, "ld_src": 8, "ld_dst": 8, "timing": timing, "ms_median": ms, "ms_min": ms, "ms_max": ms,
            "gbps": gbps if gbps is not None else 30 * pct, "pct_copy": pct, "pct_peak": pct * 0.9, "check": "",
            "device": "GPU", "commit": "abc", "date": "2026-11-22"}


class BenchScripts(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        self.bench = os.path.join(self.dir.name, "bench.jsonl")
        self.peers = os.path.join(self.dir.name, "peers.jsonl")
        rows = [record("big", "cudaMemcpyAsync", "ceiling", 100, gbps=3000), record("big", "copy", "ceiling", 99),
                record("big", "smem", "xpose", 50), record("big", "vec_swizzled", "xpose", 92),
                record("big", "auto", "xpose", 91), record("big", "cublas_geam", "peer", 96),
                record("small", "cudaMemcpyAsync", "ceiling", 100, timing="graph", ms=0.002),
                record("small", "auto", "xpose", 40, timing="graph", ms=0.005)]
        with open(self.bench, "w") as f:
            f.writelines(json.dumps(r) + "\n" for r in rows)
        with open(self.peers, "w") as f:
            f.write(json.dumps(record("big", "cupy_memcpy", "ceiling", 100, gbps=9999)) + "\n")
            f.write(json.dumps(record("big", "torch", "peer", 32)) + "\n")

    def tearDown(self):
        self.dir.cleanup()

    def run_table(self, *argv):
        out = io.StringIO()
        sys.argv = ["table.py", *argv]
        with redirect_stdout(out):
            table.main()
        return out.getvalue()

    def test_grouping_and_picks(self):
        cases = results.by_case(results.load([self.bench, self.peers]))
        self.assertEqual(list(cases), ["big", "small"])
        self.assertEqual(results.best_named(cases["big"])["kernel"], "vec_swizzled")
        self.assertEqual(results.pick(cases["big"], "torch")["pct_copy"], 32)
        self.assertIsNone(results.pick(cases["small"], "torch"))

    def test_case_table_puts_every_peer_beside_xpose(self):
        text = self.run_table("cases", self.bench, self.peers)
        # A column for each peer with a record (cublas_geam and torch here; no cuTENSOR, no CuPy).
        self.assertIn("| best named xpose | cublas_geam | torch |", text.splitlines()[0])
        big = next(line for line in text.splitlines() if line.startswith("| big "))
        # copy GB/s from xpose-bench's ceilings only (not peers.py's own), auto, best named, the peers
        self.assertEqual(big, "| big | events | 3000 | 91.0% | vec_swizzled 92.0% | 96.0% | 32.0% |")
        small = next(line for line in text.splitlines() if line.startswith("| small "))
        self.assertIn("graph: 5.00 us/call, copy 2.00 us", small)

    def test_ladder_filter(self):
        text = self.run_table("ladder", self.bench, "--case", "small")
        self.assertIn("**small**", text)
        self.assertNotIn("**big**", text)

    def test_kernel_columns(self):
        text = self.run_table("kernels", self.bench, "--kernel", "smem", "--kernel", "auto")
        self.assertIn("| case | smem | auto |", text)
        self.assertIn("| big | 50.0% | 91.0% |", text)
        self.assertIn("| small | - | 40.0% |", text)

    def test_choice_sums_up_the_choice_against_the_best_of_each_case(self):
        path = os.path.join(self.dir.name, "every.jsonl")
        with open(path, "w") as f:
            for case, auto, other in [("a", 90, 95), ("b", 80, 70), ("c", 50, 60)]:
                f.write(json.dumps(record(case, "auto", "xpose", auto)) + "\n")
                f.write(json.dumps(record(case, "permute_packed", "xpose", other)) + "\n")
        last = self.run_table("choice", path).splitlines()[-1]
        # automatic 90, 80, 50; the best of each 95, 80, 60
        self.assertEqual(last, "automatic choice: median 80.0%, 10th percentile 50.0%, worst 50.0%; "
                               "the best kernel of each case: median 80.0%, 10th percentile 60.0%, worst 60.0% of copy")

    def test_choice_sums_up_each_rule(self):
        path = os.path.join(self.dir.name, "rules.jsonl")
        with open(path, "w") as f:
            for case, rule, auto, other in [("a", "short_sides", 40, 60), ("b", "short_sides", 50, 51),
                                            ("c", "rows", 90, 80), ("d", "short_sides", 30, 45)]:
                f.write(json.dumps(dict(record(case, "auto", "xpose", auto), rule=rule)) + "\n")
                f.write(json.dumps(record(case, "permute_tiled", "xpose", other)) + "\n")
        lines = self.run_table("choice", path).splitlines()
        # short_sides: 40, 50, 30 (median 40), lost 20 + 1 + 15, faster by more than 2 points twice
        self.assertIn("| short_sides | 3 | 40.0% | 36 | permute_tiled 2 |", lines)
        self.assertIn("| rows | 1 | 90.0% | 0 | - |", lines)
        self.assertLess(lines.index("| short_sides | 3 | 40.0% | 36 | permute_tiled 2 |"),
                        lines.index("| rows | 1 | 90.0% | 0 | - |"))  # the most points lost first

    def test_bands_group_draws_by_rule_element_size_and_size(self):
        path = os.path.join(self.dir.name, "bands.jsonl")
        mib = 2**20 // 4  # fp32 elements a MiB
        with open(path, "w") as f:  # (case, rule, MiB, auto, k1, k2): k1 ahead in the small band
            for case, rule, size, auto, k1, k2 in [("a", "r", 1, 50, 60, 40), ("b", "r", 2, 60, 63, 70),
                                                   ("c", "r", 100, 90, 85, 91), ("d", "s", 1, 80, 70, 70)]:
                f.write(json.dumps(dict(record(case, "auto", "xpose", auto), rule=rule, rows=size * mib, cols=1)) + "\n")
                f.write(json.dumps(record(case, "k1", "xpose", k1)) + "\n")
                f.write(json.dumps(record(case, "k2", "xpose", k2)) + "\n")
        lines = self.run_table("bands", path).splitlines()
        # r, 0-4 MiB: k1 +10 and +3 (mean +6.5, both ahead), k2 -10 and +10 (mean 0: not shown)
        small = "| r | 4 | 0-4 | 2 | 55.0% | k1 +6.5 (2/0 of 2) |"
        large = "| r | 4 | 64+ | 1 | 90.0% | k2 +1.0 (0/0 of 1) |"
        self.assertIn(small, lines)
        self.assertIn(large, lines)
        self.assertIn("| s | 4 | 0-4 | 1 | 80.0% | - |", lines)  # nothing ahead
        self.assertLess(lines.index(small), lines.index(large))  # the most points to gain first

    def test_ab_compares_two_builds_draw_by_draw(self):
        def run(name, draws):  # draws: (case, the old build's choice, element bytes, % of copy)
            path = os.path.join(self.dir.name, name)
            with open(path, "w") as f:
                for case, chosen, size, pct in draws:
                    f.write(json.dumps(dict(record(case, "auto", "xpose", pct), chosen=chosen, elem_bytes=size)) + "\n")
                    f.write(json.dumps(record(case, "copy", "ceiling", 100)) + "\n")
            return path
        # Draw a has two rounds in the old file (80 and 82: 81); c is the old build's worst.
        old = run("old.jsonl", [("a", "k1", 4, 80), ("b", "k1", 4, 60), ("c", "k2", 1, 40), ("a", "k1", 4, 82)])
        new = run("new.jsonl", [("a", "k1", 4, 85), ("b", "k1", 4, 62), ("c", "k3", 1, 30), ("only new", "k1", 4, 1)])
        lines = self.run_table("ab", old, new).splitlines()
        self.assertIn("| old | old.jsonl | 3 | 60.0% | 40.0% | 40.0% |", lines)
        self.assertIn("| new | new.jsonl | 3 | 62.0% | 30.0% | 30.0% |", lines)
        # k2 (c: -10) before k1 (a +4, b +2): the most lost first; then all three draws
        self.assertLess(lines.index("| k2 | 1 | 1 | -10.0 | -10.0 | -10.0 |"),
                        lines.index("| k1 | 4 | 2 | +3.0 | +2.0 | +4.0 |"))
        self.assertIn("| all | | 3 | -1.3 | -10.0 | +4.0 |", lines)
        self.assertEqual(lines[-3], " -10.0   40.0 ->  30.0%  c (k2 -> k3)")

    def test_moved_lists_the_draws_whose_plans_differ(self):
        def plans(name, texts):
            path = os.path.join(self.dir.name, name)
            with open(path, "w") as f:
                for (case, text) in texts:
                    f.write(f"{case}\t{text}\n")
            return path
        cases = [f"u8 {n}x7x9 (2,0,1) random {n} of seed 5" for n in range(1, 5)]
        cases.append("fp32 3x4 (1,0) random 9 of seed 5")
        old = plans("old.tsv", [(c, "plan a") for c in cases])
        new = plans("new.tsv", [(c, "plan b" if n in (1, 2, 4) else "plan a") for n, c in enumerate(cases)])
        err = io.StringIO()
        with redirect_stderr(err):
            lines = self.run_table("moved", old, new).splitlines()
        self.assertEqual(["u8 2,7,9 2,0,1", "u8 3,7,9 2,0,1", "fp32 3,4 1,0"], lines)
        self.assertIn("3 of 5 draws moved (fp32 1, u8 2); 3 listed", err.getvalue())
        with redirect_stderr(io.StringIO()):
            one = self.run_table("moved", old, new, "--per-type", "1", "--seed", "7").splitlines()
        self.assertEqual(2, len(one))  # one u8 of the two, the fp32
        self.assertIn("fp32 3,4 1,0", one)

    def test_moved_lists_2d_draws_as_the_transpose_ab_reads_them(self):
        cases = ["random 0 of seed 5: fp32 batched 44x128x1787 ld 1825/171", "random 1 of seed 5: u8 3x5",
                 "random 2 of seed 5: fp64 7x9 ld 11/8"]
        paths = []
        for name, texts in (("old2.tsv", ["a", "a", "a"]), ("new2.tsv", ["b", "a", "b"])):
            paths.append(os.path.join(self.dir.name, name))
            with open(paths[-1], "w") as f:
                f.writelines(f"{c}\t{t}\n" for c, t in zip(cases, texts))
        err = io.StringIO()
        with redirect_stderr(err):
            lines = self.run_table("moved", *paths).splitlines()
        self.assertEqual(["fp32 128 1787 44 1825 171", "fp64 7 9 1 11 8"], lines)
        self.assertIn("2 of 3 draws moved (fp32 1, fp64 1); 2 listed", err.getvalue())

    def test_random_reports_each_file_over_its_large_draws(self):
        path = os.path.join(self.dir.name, "draws.jsonl")
        with open(path, "w") as f:  # 20 draws of 8 x 8 fp32 at 1..20%, and two of 64 MiB at 90 and 70%
            for k in range(1, 21):
                f.write(json.dumps(record(f"d{k}", "auto", "xpose", float(k))) + "\n")
            for name, pct in (("big a", 90.0), ("big b", 70.0)):
                f.write(json.dumps(dict(record(name, "auto", "xpose", pct), rows=4096, cols=4096)) + "\n")
        lines = self.run_table("random", path).splitlines()
        # 22 draws: median (11 + 12) / 2; nearest rank: the 3rd lowest; worst 1
        self.assertEqual(lines[2], "| draws.jsonl | 22 | 11.5% | 3.0% | 1.0% |")
        lines = self.run_table("random", path, "--min-mib", "64").splitlines()
        self.assertIn("of 64 MiB or more", lines[0])
        self.assertEqual(lines[2], "| draws.jsonl | 2 | 80.0% | 70.0% | 70.0% |")

    def test_behind_compares_the_choice_with_each_peer_by_time(self):
        path = os.path.join(self.dir.name, "peers-by-time.jsonl")
        rows = [record("a", "auto", "xpose", 90, ms=1.0), record("a", "torch", "peer", 50, ms=2.0),
                record("a", "cublas_geam", "peer", 95, ms=0.9),  # 1.11x faster than xpose
                record("b", "auto", "xpose", 80, ms=1.0), record("b", "torch", "peer", 79, ms=1.02),  # within 5%
                record("c", "torch", "peer", 10, ms=5.0)]  # no xpose record: not compared
        with open(path, "w") as f:
            f.writelines(json.dumps(dict(r, chosen="k1") if r["kernel"] == "auto" else r) + "\n" for r in rows)
        lines = self.run_table("behind", path).splitlines()
        self.assertIn("| cublas_geam | 1 | 0.90x | 0 | 1 |", lines)
        self.assertIn("| torch | 2 | 1.51x | 1 | 0 |", lines)
        self.assertEqual(lines[-1], "cublas_geam 1.11x faster: a (xpose k1 1.0000 ms 90.0% of copy, cublas_geam 0.9000 ms "
                                    "95.0%)")
        # 8 x 8 fp32 is 256 bytes: nothing of 1 MiB or more to compare
        with self.assertRaises(SystemExit):
            with redirect_stderr(io.StringIO()):
                self.run_table("behind", path, "--min-mib", "1")

    def test_placement_compares_each_run_with_the_exact_one(self):
        def run(name, where, rows):  # rows: (case, % of copy, GB/s); 8192 x 4096 fp32 = 128 MiB
            path = os.path.join(self.dir.name, name)
            with open(path, "w") as f:
                for case, pct, gbps in rows:
                    r = dict(record(case, "auto", "xpose", pct, gbps=gbps), rows=8192, cols=4096, placement=where)
                    f.write(json.dumps(r) + "\n")
                f.write(json.dumps(dict(record("tiny", "auto", "xpose", 10), placement=where)) + "\n")  # under 64 MiB
            return path
        exact = run("exact.jsonl", "exact", [("a", 90, 2700), ("b", 95, 2850)])
        inside = run("inside.jsonl", "inside", [("a", 93, 2400), ("b", 95.5, 2860)])
        lines = self.run_table("placement", exact, inside).splitlines()
        self.assertIn("within 2 points", lines[0])
        # a: 3 points of copy off and 11.1% of its GB/s lost; b: within both; tiny: not counted
        self.assertEqual(lines[2], "| inside.jsonl | inside | 2 | 1 | 1 | -11.1% a (?) |")

    def test_bad_json_names_the_line(self):
        with open(self.bench, "a") as f:
            f.write("{not json\n")
        err = io.StringIO()
        with self.assertRaises(SystemExit) as e, redirect_stderr(err):
            results.load([self.bench])
        self.assertEqual(e.exception.code, 1)
        self.assertIn("bench.jsonl:9: not JSON", err.getvalue())


# Runs a script with one module made unimportable, as if it were not installed.
BLOCK_IMPORT = """import runpy, sys
sys.modules[sys.argv[1]] = None
sys.argv = sys.argv[2:]
runpy.run_path(sys.argv[0], run_name="__main__")
"""

# Stands in for xpose-bench --list: no cases, or xpose-bench's usage error for --bogus.
FAKE_BENCH = """#!/bin/sh
case "$*" in *--bogus*) echo "xpose-bench: The following argument was not expected: --bogus" >&2; exit 2;; esac
"""


class ScriptErrors(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        self.path = lambda name: os.path.join(self.dir.name, name)  # noqa: E731
        files = {"good.jsonl": json.dumps(record("big", "auto", "xpose", 90)) + "\n", "empty.jsonl": "",
                 "notjson.jsonl": "{not json\n", "list.jsonl": "[1, 2]\n",
                 "partial.jsonl": json.dumps({"case": "big", "kernel": "auto"}) + "\n",
                 "text_pct.jsonl": json.dumps({**record("big", "auto", "xpose", 90), "pct_copy": "90%"}) + "\n",
                 "dist_registered.jsonl": json.dumps({"ranks": 2, "dtype": "fp32", "total_bytes": 1 << 30,
                                                      "alltoall_ms": 1.0, "xpose_ms": 1.1, "steps": 0,
                                                      "nccl_memory": True}) + "\n",
                 "bench": FAKE_BENCH}
        for name, text in files.items():
            with open(self.path(name), "w") as f:
                f.write(text)
        os.chmod(self.path("bench"), stat.S_IRWXU)

    def tearDown(self):
        self.dir.cleanup()

    def assert_fails(self, status, script, *args, blocked=None):
        """The script exits with `status`, one line on stderr (returned), nothing on stdout."""
        path = os.path.join(BENCH_DIR, script)
        argv = ["-c", BLOCK_IMPORT, blocked, path] if blocked else [path]
        r = subprocess.run([sys.executable, *argv, *args], capture_output=True, text=True, timeout=60,
                           cwd=self.dir.name)
        self.assertNotIn("Traceback", r.stderr)
        self.assertEqual(r.returncode, status, r.stderr)
        self.assertTrue(r.stderr.startswith(script + ": ") and r.stderr.count("\n") == 1, repr(r.stderr))
        self.assertEqual(r.stdout, "")
        return r.stderr

    def test_a_reader_that_stops_early_gets_no_traceback(self):
        """`table.py ... | head -1`: the table stops quietly when its reader closes the pipe."""
        many = os.path.join(self.dir.name, "many.jsonl")
        with open(many, "w") as f:
            for i in range(3000):
                f.write(json.dumps(record(f"case {i}", "copy", "ceiling", 100)) + "\n")
                f.write(json.dumps(record(f"case {i}", "auto", "xpose", 50 + i % 40)) + "\n")
        p = subprocess.Popen([sys.executable, os.path.join(BENCH_DIR, "table.py"), "cases", many],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        first = p.stdout.readline()
        p.stdout.close()
        err = p.stderr.read()
        p.stderr.close()
        self.assertEqual(p.wait(), 0, err)
        self.assertTrue(first.startswith("|"), first)
        self.assertEqual(err, "")

    def test_usage_errors_exit_2(self):
        peers = ["--bench", "./bench", "--json", "p.jsonl"]
        for script, args, why in [("table.py", [], "required: kind, files"),
                                  ("table.py", ["bogus", "good.jsonl"], "invalid choice: 'bogus'"),
                                  ("table.py", ["cases", "good.jsonl", "--bogus"], "unrecognized arguments: --bogus"),
                                  ("plot.py", [], "required: kind, files"),
                                  ("plot.py", ["sweep", "good.jsonl", "--bogus"], "unrecognized arguments: --bogus"),
                                  ("peers.py", [], "required: --bench, --json"),
                                  ("peers.py", [*peers, "--reps", "0"], "--reps must be at least 1"),
                                  ("peers.py", [*peers, "--reps", "x"], "invalid int value: 'x'"),
                                  ("peers.py", [*peers, "--bogus"], "not expected: --bogus"),  # xpose-bench's
                                  ("peers.py", ["--bench", "./bench", "--json", "no/dir/p.jsonl"],
                                   "cannot open --json file 'no/dir/p.jsonl'"),
                                  ("python_calls.py", [], "required: --json"),
                                  ("python_calls.py", ["--json", "c.jsonl", "--reps", "0"], "--reps and --calls must be"),
                                  ("python_calls.py", ["--json", "c.jsonl", "--random", "-1"], "--random at least 0"),
                                  ("python_calls.py", ["--json", "no/dir/c.jsonl"],
                                   "cannot open --json file 'no/dir/c.jsonl'")]:
            with self.subTest(script=script, args=args):
                self.assertIn(why, self.assert_fails(2, script, *args))

    def test_bad_input_files_exit_1_naming_the_file(self):
        for script in ["table.py", "plot.py"]:
            for name, why in [("missing.jsonl", "No such file"), (".", "Is a directory"),
                              ("notjson.jsonl", "notjson.jsonl:1: not JSON"),
                              ("list.jsonl", "list.jsonl:1: not a record"),
                              ("partial.jsonl", "partial.jsonl:1: not a record: 'role' is missing"),
                              ("text_pct.jsonl", "'pct_copy' is missing or not a number")]:
                with self.subTest(script=script, file=name):
                    self.assertIn(why, self.assert_fails(1, script, "cases", "good.jsonl", name))
        self.assertIn("no records", self.assert_fails(1, "plot.py", "cases", "empty.jsonl"))
        # xpose-dist-bench's records are their own kind.
        self.assertIn("No such file", self.assert_fails(1, "plot.py", "distributed", "missing.jsonl"))
        self.assertIn("no xpose-dist-bench records", self.assert_fails(1, "plot.py", "distributed", "good.jsonl"))
        self.assertIn("no --random draws", self.assert_fails(1, "plot.py", "random", "good.jsonl"))
        self.assertIn("ab compares two files", self.assert_fails(1, "table.py", "ab", "good.jsonl"))
        self.assertIn("bands needs records", self.assert_fails(1, "table.py", "bands", "good.jsonl"))
        self.assertIn("share no draw", self.assert_fails(1, "table.py", "ab", "good.jsonl", "empty.jsonl"))
        with open(self.path("plans.tsv"), "w") as f:
            f.write("u8 2x3 (1,0) random 0 of seed 1\tplan\n")
        self.assertIn("moved compares two files", self.assert_fails(1, "table.py", "moved", "plans.tsv"))
        for other, why in (("empty.jsonl", "not the plans of one list"), ("good.jsonl", "not an xpose_plan_draws line")):
            self.assertIn(why, self.assert_fails(1, "table.py", "moved", "plans.tsv", other))
        self.assertIn("no xpose-quantize-bench records", self.assert_fails(1, "plot.py", "quantize", "good.jsonl"))
        # --nccl-memory runs are against another ceiling: not on the plot.
        self.assertIn("no xpose-dist-bench records",
                      self.assert_fails(1, "plot.py", "distributed", "dist_registered.jsonl"))

    def test_peers_says_when_the_bench_cannot_run(self):
        self.assertIn("cannot run --bench", self.assert_fails(1, "peers.py", "--bench", "missing", "--json", "p"))

    def test_a_missing_module_is_named_with_how_to_get_it(self):
        err = self.assert_fails(1, "plot.py", "cases", "good.jsonl", blocked="matplotlib")
        self.assertIn("cannot import matplotlib", err)
        self.assertIn("pip install matplotlib", err)
        err = self.assert_fails(1, "peers.py", "--bench", "./bench", "--json", "p.jsonl", blocked="torch")
        self.assertIn("cannot import torch", err)
        self.assertIn("pip install torch", err)
        err = self.assert_fails(1, "python_calls.py", "--json", "c.jsonl", blocked="torch")
        self.assertIn("cannot import torch", err)


if __name__ == "__main__":
    unittest.main()
