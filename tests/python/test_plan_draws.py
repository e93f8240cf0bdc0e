"""xpose_plan_draws (tests/support/plan_draws.cpp): one line a draw, the draw and its plan on
the pretend GPU named, tab-separated; a named kernel's plan (or its refusal) after them; a
refused permutation said as such; an unreadable line or device ends it with status 2 and one
line on stderr.

  python3 tests/python/test_plan_draws.py build/tests/xpose_plan_draws
"""
import subprocess
import sys
import unittest

TOOL = None  # set from the command line

JSON_LINE = ('{"case":"u8 3057x126x63x9 (0,3,1,2) random 0 of seed 1","dtype":"u8","elem_bytes":1,'
             '"extents":[3057,126,63,9],"perm":[0,3,1,2],"timing":"events"}')


def run(args, stdin):
    return subprocess.run([TOOL] + args, input=stdin, capture_output=True, text=True, timeout=60)


class PlanDraws(unittest.TestCase):
    def test_json_and_plain_lines(self):
        r = run(["h200"], JSON_LINE + "\n\n4 64,36,40 0,2,1\n")
        self.assertEqual(0, r.returncode, r.stderr)
        lines = r.stdout.splitlines()
        self.assertEqual(2, len(lines), r.stdout)
        name, text = lines[0].split("\t")
        self.assertEqual("u8 3057x126x63x9 (0,3,1,2) random 0 of seed 1", name)
        self.assertIn("permute_packed", text)
        self.assertIn("4-byte words along dst's lines", text)  # this size's byte tiles are stored as words
        name, text = lines[1].split("\t")
        self.assertEqual("4 64,36,40 0,2,1", name)
        self.assertIn("4-byte elements", text)

    def test_2d_transposes(self):
        line = ('{"batch":44,"case":"random 0 of seed 5: fp32 batched 44x128x1787 ld 1825/171","cols":1787,'
                '"dtype":"fp32","elem_bytes":4,"ld_dst":171,"ld_src":1825,"rows":128,"timing":"auto"}')
        r = run(["h200", "cute_padded"], line + "\n" + line.replace('"ld_dst":171', '"ld_dst":100') + "\n")
        self.assertEqual(0, r.returncode, r.stderr)
        first, second = r.stdout.splitlines()
        name, auto, named = first.split("\t")
        self.assertEqual("random 0 of seed 5: fp32 batched 44x128x1787 ld 1825/171", name)
        self.assertIn("kernel smem_padded", auto)  # rule unaligned_mid on the H200
        self.assertIn("kernel cute_padded", named)
        self.assertTrue(second.split("\t")[1].startswith("refused: "), second)  # ld_dst below rows

    def test_named_kernel_and_refusals(self):
        r = run(["h100", "permute_rows"], "1 30,126,63,9 0,3,1,2\n2 5,7 0,0\n")
        self.assertEqual(0, r.returncode, r.stderr)
        first, second = r.stdout.splitlines()
        self.assertEqual(3, len(first.split("\t")))
        self.assertTrue(first.split("\t")[2].startswith("refused: "), first)  # permute_rows takes rows only
        self.assertTrue(second.split("\t")[1].startswith("refused: "), second)  # perm repeats an axis

    def test_bad_input(self):
        for args, stdin in ((["h200"], "hello\n"), (["h300"], ""), ([], ""), (["h200"], "1 3,4\n")):
            r = run(args, stdin)
            self.assertEqual(2, r.returncode, (args, stdin))
            self.assertEqual("", r.stdout)
            self.assertEqual(1, len(r.stderr.strip().splitlines()), r.stderr)


if __name__ == "__main__":
    TOOL = sys.argv.pop(1)
    unittest.main()
