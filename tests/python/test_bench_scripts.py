"""bench/table.py and bench/results.py on records written the way xpose-bench and peers.py write them."""
import io
import json
import os
import sys
import tempfile
import unittest
from contextlib import redirect_stdout

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "bench"))
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
        big = next(line for line in text.splitlines() if line.startswith("| big "))
        # copy GB/s from xpose-bench's ceilings only (not peers.py's own), auto, best named, the peers
        self.assertEqual(big, "| big | events | 3000 | 91.0% | vec_swizzled 92.0% | 96.0% | - | 32.0% | - |")
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

    def test_bad_json_names_the_line(self):
        with open(self.bench, "a") as f:
            f.write("{not json\n")
        with self.assertRaises(SystemExit) as e:
            results.load([self.bench])
        self.assertIn("bench.jsonl:9", str(e.exception))


if __name__ == "__main__":
    unittest.main()
