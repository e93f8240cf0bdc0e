"""The library's kernels against their register budgets (tests/kernel_registers.txt).

ptxas's resource report of each CUDA object (kept beside it by cmake/ptxas-report when
XPOSE_KERNEL_REPORT is on) gives every sm_90a kernel's registers a thread and spill bytes.
A kernel past its budget runs fewer blocks an SM, whole tiles included, and that costs
bandwidth without failing any correctness test (05a84c2 took cute_vectorized's byte kernel
from 32 to 80 registers: 3 blocks an SM instead of 8, rule short_bytes's u8 batch 99% -> 62% of a copy
on the H200). A budget is raised only with a measurement behind it.

usage: test_kernel_registers.py BUILD_DIR TABLE [--cute]   (--cute: the CuTe family was built)
"""
import glob
import os
import re
import shutil
import subprocess
import sys

ARCH = "sm_90a"
SIZES = (1, 2, 4, 8, 16)


def read_table(path):
    """family -> ({elem_bytes: max registers}, max spill bytes)."""
    table = {}
    for line in open(path):
        line = line.split("#", 1)[0].split()
        if not line:
            continue
        if len(line) != 7:
            sys.exit(f"{path}: a row is a family, 5 register budgets (1, 2, 4, 8, 16 bytes) and spill bytes: {line}")
        family, *regs, spills = line
        table[family] = ({e: (None if r == "-" else int(r)) for e, r in zip(SIZES, regs)}, int(spills))
    return table


def read_reports(build_dir):
    """[(mangled name, registers, spill bytes)] for every ARCH kernel of every report."""
    kernels, reports = [], glob.glob(os.path.join(build_dir, "**", "*.ptxas"), recursive=True)
    for report in reports:
        name = arch = None
        spills = 0
        for line in open(report):
            m = re.search(r"Compiling entry function '(\S+)' for '(\w+)'", line)
            if m:
                name, arch = m.groups()
                continue
            m = re.search(r"(\d+) bytes spill stores, (\d+) bytes spill loads", line)
            if m:
                spills = int(m.group(1)) + int(m.group(2))
                continue
            m = re.search(r"Used (\d+) registers", line)
            if m and name:
                if arch == ARCH:
                    kernels.append((name, int(m.group(1)), spills))
                name, spills = None, 0
    return reports, kernels


def family_and_size(demangled):
    """('transpose_vec_swizzled', 4) from 'void xpose::engines::(anonymous namespace)::transpose_vec_swizzled<4>(...)';
    a kernel of no template (one for every element size: it moves bytes) is held to its row's 1-byte budget."""
    m = re.search(r"(\w+)<\D*?(\d+)", demangled)
    if m:
        return m.group(1), int(m.group(2))
    m = re.search(r"(\w+)\(", demangled)
    return (m.group(1), 1) if m else (None, None)


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    build_dir, table_path, cute = sys.argv[1], sys.argv[2], "--cute" in sys.argv[3:]
    table = read_table(table_path)
    reports, kernels = read_reports(build_dir)
    if not kernels:
        sys.exit(f"FAIL: no {ARCH} kernel in {len(reports)} ptxas reports under {build_dir} (XPOSE_KERNEL_REPORT on?)")
    if not shutil.which("c++filt"):
        sys.exit("FAIL: c++filt (binutils) is needed to read the kernels' names")
    names = [k[0] for k in kernels]
    demangled = subprocess.run(["c++filt"], input="\n".join(names), capture_output=True, text=True,
                               check=True).stdout.split("\n")
    failures, seen = [], set()
    for (name, regs, spills), readable in zip(kernels, demangled):
        family, size = family_and_size(readable)
        if family not in table:
            failures.append(f"{readable[:120]}: no budget row for {family} in {table_path}")
            continue
        budgets, spill_budget = table[family]
        seen.add((family, size))
        budget = budgets.get(size)
        if budget is None:
            failures.append(f"{family}<{size}>: no budget for {size}-byte elements in {table_path}")
        elif regs > budget:
            failures.append(f"{family}<{size}> uses {regs} registers a thread, its budget is {budget} "
                            f"({readable[:100]}): fewer blocks an SM; measure before raising the budget")
        if spills > spill_budget:
            failures.append(f"{family}<{size}> spills {spills} bytes, its budget is {spill_budget}")
    for family, (budgets, _) in table.items():
        if "cute" in family and not cute:
            continue
        for size, budget in budgets.items():
            if budget is not None and (family, size) not in seen:
                failures.append(f"{table_path}: {family} has a budget for {size}-byte elements but no such kernel was built")
    for f in failures:
        print("FAIL:", f)
    print(f"{len(kernels)} {ARCH} kernels from {len(reports)} reports, {len(table)} budget rows: "
          f"{'FAILED' if failures else 'all within budget'}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
