"""xpose-bench's command-line contract (README.md): a bad argument exits with status 2, one
line on stderr and nothing on stdout; an output file that cannot be written, or a CPU-path
shape beyond memory, ends in one line and a non-zero status.

  python3 tests/python/test_cli.py build/bench/xpose-bench

Without a GPU xpose-bench times the CPU path; the runs that get that far say --device cpu,
so that they take it on a GPU machine too.
"""
import json
import os
import re
import resource
import subprocess
import sys
import tempfile
import unittest

BENCH = None  # set from the command line

CPU = ["--device", "cpu", "--no-progress"]

BAD_ARGUMENTS = [
    ["--reps", "0"],
    ["--reps", "-3"],
    ["--reps", "abc"],
    ["--reps", "99999999999999999999"],
    ["--ld-src", "-1"],
    ["--ld-dst", "-5"],
    ["--ld-src", "abc"],
    ["--bogus"],
    ["--dtype", "nope"],
    ["--shape", "0x5"],
    ["--shape", "12"],
    ["--timing", "fast"],
    ["--device", "tpu"],
    ["--warmup", "-1"],
    ["--cases", "--shape", "4x4"],
    ["--sweep", "--cases"],
    ["--cases", "--dtype", "fp32"],
    ["--sweep", "--ld-src", "300"],
    ["--kernel", "nope"],
    ["--json"],
    ["stray"],
    ["--dtype", "line\nbreak"],
    ["--json", "/nonexistent/dir/x.json"],
    ["--csv", "/nonexistent/dir/x.csv"],
    [*CPU, "--sweep"],
    [*CPU, "--shape", "4000000000x4000000000"],  # its byte count overflows int64
    [*CPU, "--shape", "8x8", "--ld-src", "3"],
    [*CPU, "--host-cost"],
    ["--host-cost", "--cases"],
    ["--host-cost", "--check"],
    # integers past int64 are refused, not clamped; options that cannot apply are refused
    [*CPU, "--shape", "8x8", "--ld-src", "99999999999999999999"],
    [*CPU, "--shape", "8x8", "--ld-dst", "-99999999999999999999"],
    [*CPU, "--shape", "8x8", "--ld-src", "1e3"],
    [*CPU, "--ld-src", "5"],
    ["--ld-dst", "5"],
    [*CPU, "--shape", "8x8", "--json", ""],
    [*CPU, "--shape", "8x8", "--csv", ""],
    [*CPU, "--shape", ""],
    # a value with control characters is echoed with escapes, on one line
    ["--kernel", "a\nb"],
    ["--kernel", "a\rb\x1b[31m"],
    ["--shape", "1\n2"],
]

README = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "README.md")
HEADER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "include", "xpose", "xpose.h")


def header_version():
    """MAJOR.MINOR.PATCH from xpose.h's macros, where the version is defined."""
    with open(HEADER) as f:
        text = f.read()
    return ".".join(re.search(rf"^#define XPOSE_VERSION_{part} +(\d+)$", text, re.M).group(1)
                    for part in ["MAJOR", "MINOR", "PATCH"])


def run(args, memory_limit=None):
    def limit():
        resource.setrlimit(resource.RLIMIT_AS, (memory_limit, memory_limit))
    return subprocess.run([BENCH, *args], capture_output=True, text=True, timeout=300,
                          preexec_fn=limit if memory_limit else None)


class Cli(unittest.TestCase):
    def assert_one_line(self, err):
        self.assertTrue(err.strip() and err.endswith("\n") and err.count("\n") == 1,
                        f"stderr must be one non-empty line, got {err!r}")
        # No runaway values (CLI11 once printed a 300-digit number); a list of kernel names is fine.
        self.assertIsNone(re.search(r"\d{25}", err), err)
        self.assertLess(len(err), 1000, err)

    def assert_refused(self, args, memory_limit=None):
        """A non-zero exit (not a signal), one line on stderr; returns that line."""
        r = run(args, memory_limit)
        self.assertGreater(r.returncode, 0, f"exit status {r.returncode}; stderr {r.stderr!r}")
        self.assert_one_line(r.stderr)
        self.assertNotIn("Traceback", r.stderr)
        return r.stderr

    def test_bad_arguments_exit_2_with_one_line_and_no_output(self):
        for args in BAD_ARGUMENTS:
            with self.subTest(args=" ".join(args)):
                r = run(args)
                self.assertEqual(r.returncode, 2, f"stderr {r.stderr!r}")
                self.assert_one_line(r.stderr)
                self.assertTrue(r.stderr.startswith("xpose-bench: "), r.stderr)
                self.assertEqual(r.stdout, "")

    def test_rules_are_the_readmes_table(self):
        """`--rules` needs no GPU, and the README's rule and tuning tables are its output."""
        r = run(["--rules"])
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(r.stderr, "")
        tables = [line for line in r.stdout.splitlines() if line.startswith("|")]
        self.assertGreater(len(tables), 20)
        for rule in ["short_side", "tiny_batch", "short_bytes", "pitch_16_mod_32", "large_tma", "small_aligned", "narrow_small", "narrow_large", "small_fp32", "aligned", "unaligned_large", "unaligned_large_bytes", "unaligned_mid", "unaligned_small", "fallback"]:
            self.assertTrue(any(line.startswith(f"| {rule} |") for line in tables), rule)
        with open(README) as f:
            readme = f.read()
        start, end = "<!-- xpose-bench --rules -->\n", "<!-- end of xpose-bench --rules -->"
        self.assertIn(start, readme)
        block = readme[readme.index(start) + len(start):readme.index(end)]
        # a build without the CuTe family adds a line saying which rules it skips; the tables match
        self.assertEqual([line for line in block.splitlines() if line.startswith("|")], tables,
                         "README.md's rule table is not `xpose-bench --rules`: paste its output")

    def test_ld_message_is_readable(self):
        r = run(["--ld-src", "-1"])
        self.assertEqual(r.stderr, "xpose-bench: --ld-src: -1 is negative; it must be >= 0 (0: packed)\n")

    def test_control_characters_are_escaped(self):
        r = run(["--kernel", "a\nb"])
        self.assertTrue(r.stderr.startswith("xpose-bench: unknown --kernel 'a\\nb'"), r.stderr)
        r = run(["--dtype", "x\ty"])
        self.assertEqual(r.stderr, "xpose-bench: unknown --dtype 'x\\ty'\n")

    def test_help_exits_0_on_stdout(self):
        r = run(["--help"])
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("--cases", r.stdout)
        self.assertIn("--json", r.stdout)
        self.assertEqual(r.stderr, "")

    def test_version_is_the_headers(self):
        r = run(["--version"])
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(r.stderr, "")
        self.assertRegex(r.stdout, rf"^xpose-bench {re.escape(header_version())} \(commit [0-9a-z-]+\)\n$")

    def test_permute_bench_version_is_the_headers(self):
        # peers.py stamps its records with the commit the bench it draws from was built at.
        permute_bench = os.path.join(os.path.dirname(BENCH), "xpose-permute-bench")
        if not os.path.exists(permute_bench):
            self.skipTest(f"{permute_bench} not built")
        r = subprocess.run([permute_bench, "--version"], capture_output=True, text=True, timeout=60)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(r.stderr, "")
        self.assertRegex(r.stdout, rf"^xpose-permute-bench {re.escape(header_version())} \(commit [0-9a-z-]+\)\n$")

    def test_permute_bench_kernel_names_are_checked_up_front(self):
        # --kernel: an unknown name, --every-kernel beside it, or --random without auto (its report
        # judges the automatic choice) is one line on stderr and status 2, before any GPU work;
        # known names pass (--list stops before the GPU).
        permute_bench = os.path.join(os.path.dirname(BENCH), "xpose-permute-bench")
        if not os.path.exists(permute_bench):
            self.skipTest(f"{permute_bench} not built")
        for args, says in [(["--kernel", "bogus"], "unknown --kernel 'bogus' (known: auto, permute_"),
                           (["--kernel", "auto", "--random", "2", "--every-kernel"], "drop --every-kernel"),
                           (["--kernel", "permute_packed", "--random", "2"], "add auto to --kernel")]:
            with self.subTest(args=args):
                r = subprocess.run([permute_bench] + args, capture_output=True, text=True, timeout=60)
                self.assertEqual(r.returncode, 2, r.stderr)
                self.assertEqual(r.stdout, "")
                self.assertEqual(len(r.stderr.splitlines()), 1, r.stderr)
                self.assertIn(says, r.stderr)
        r = subprocess.run([permute_bench, "--kernel", "auto,permute_packed", "--random", "2", "--list"],
                           capture_output=True, text=True, timeout=60)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(len(r.stdout.splitlines()), 2)
        # a transpose kernel by name: for permutations that are batched transposes
        r = subprocess.run([permute_bench, "--kernel", "short_lines", "--dtype", "u8", "--extents", "26073,41", "--perm",
                            "1,0", "--list"], capture_output=True, text=True, timeout=60)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(len(r.stdout.splitlines()), 1)

    def test_quantize_bench_random_draws_are_listed_again_from_their_seed(self):
        # --random N --seed S lists the same N problems each time, labelled so that they can be drawn
        # again; beside --shape it is one line on stderr and status 2 (--list stops before the GPU).
        quantize_bench = os.path.join(os.path.dirname(BENCH), "xpose-quantize-bench")
        if not os.path.exists(quantize_bench):
            self.skipTest(f"{quantize_bench} not built")
        lists = [subprocess.run([quantize_bench, "--random", "6", "--seed", seed, "--list"], capture_output=True,
                                text=True, timeout=60) for seed in ("17", "17", "18")]
        for r in lists:
            self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(lists[0].stdout, lists[1].stdout)
        self.assertNotEqual(lists[0].stdout, lists[2].stdout)
        labels = [json.loads(line)["case"] for line in lists[0].stdout.splitlines()]
        self.assertEqual([f"random {i} of seed 17: " for i in range(6)], [label[:len(f"random {i} of seed 17: ")]
                                                                          for i, label in enumerate(labels)])
        # --input, --recipe and --outputs, where given, keep those draws alone (the same draws, fewer)
        every = [json.loads(line) for line in subprocess.run(
            [quantize_bench, "--random", "60", "--seed", "5", "--list"], capture_output=True, text=True,
            timeout=60).stdout.splitlines()]
        kept = [json.loads(line) for line in subprocess.run(
            [quantize_bench, "--random", "60", "--seed", "5", "--input", "bf16", "--recipe", "mxfp8", "--list"],
            capture_output=True, text=True, timeout=60).stdout.splitlines()]
        self.assertEqual([c for c in every if c["input"] == "bf16" and c["recipe"] == "mxfp8"], kept)
        self.assertGreater(len(kept), 0)
        r = subprocess.run([quantize_bench, "--random", "3", "--shape", "64x64"], capture_output=True, text=True,
                           timeout=60)
        self.assertEqual(r.returncode, 2, r.stderr)
        self.assertEqual(r.stdout, "")
        self.assertEqual(r.stderr, "xpose-quantize-bench: --random draws its own shapes; drop --shape\n")

    @unittest.skipUnless(os.path.exists("/dev/full"), "no /dev/full")
    def test_a_failed_write_is_an_error_found_up_front(self):
        for option in ["--json", "--csv"]:
            with self.subTest(option=option):
                r = run([*CPU, "--shape", "8x8", option, "/dev/full"])
                self.assertEqual(r.returncode, 2, r.stderr)  # a bad argument, found before the run
                self.assert_one_line(r.stderr)
                self.assertIn(f"cannot write {option} file '/dev/full'", r.stderr)
                self.assertEqual(r.stdout, "")

    def test_records_are_written(self):
        with tempfile.TemporaryDirectory() as d:
            json_path, csv_path = os.path.join(d, "r.jsonl"), os.path.join(d, "r.csv")
            r = run([*CPU, "--shape", "8x8", "--reps", "1", "--json", json_path, "--csv", csv_path])
            self.assertEqual(r.returncode, 0, r.stderr)
            self.assertEqual(r.stderr, "")
            with open(json_path) as f:
                self.assertEqual(len(f.readlines()), 2)  # memcpy and cpu_reference
            with open(csv_path) as f:
                self.assertEqual(len(f.readlines()), 3)  # and the header

    def test_a_shape_beyond_memory_is_refused(self):
        err = self.assert_refused([*CPU, "--dtype", "u8", "--shape", "1000000x1000000"])  # 2 TB
        self.assertIn("MiB of host memory", err)

    def test_a_failed_allocation_is_refused(self):
        # 8 GiB under a 3 GiB address-space limit: std::bad_alloc, unless the machine is too
        # small for it anyway (then the memory check refuses it first).
        err = self.assert_refused([*CPU, "--shape", "32768x32768"], memory_limit=3 << 30)
        self.assertRegex(err, "out of host memory|MiB of host memory")

    def test_gpu_only_options_say_so_on_the_cpu_path(self):
        r = run([*CPU, "--explain", "--shape", "8x8", "--reps", "1"])
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(r.stderr, "xpose-bench: --explain does nothing on the CPU path\n")
        self.assertIn("cpu_reference", r.stdout)
        r = run([*CPU, "--kernel", "smem", "--timing", "events", "--check", "--explain", "--shape", "8x8",
                 "--reps", "1"])
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(r.stderr.splitlines(),
                         [f"xpose-bench: {o} does nothing on the CPU path"
                          for o in ["--kernel", "--timing", "--check", "--explain"]])


if __name__ == "__main__":
    if len(sys.argv) < 2 or not os.access(sys.argv[1], os.X_OK):
        sys.exit("usage: test_cli.py PATH/TO/xpose-bench")
    BENCH = sys.argv.pop(1)
    unittest.main()
