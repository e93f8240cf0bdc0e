"""Reading xpose-bench and peers.py records (JSON lines), for table.py and plot.py."""
import json

from cli import fail

PEERS = ["cublas_geam", "cublasLt_transform", "cutensor", "torch", "cupy"]
PY_CEILINGS = {"torch_copy", "cupy_memcpy"}  # peers.py's own copy ceiling, measured in its process

# The fields of a record (bench/record.hpp), and what each holds.
TEXT = ("case", "kernel", "role", "dtype", "timing", "check", "device", "commit", "date")
NUMBER = ("elem_bytes", "rows", "cols", "batch", "ld_src", "ld_dst", "ms_median", "ms_min", "ms_max", "gbps",
          "pct_copy", "pct_peak")


def not_a_record(r):
    """Why a parsed line is not a record, or None when it is one."""
    if not isinstance(r, dict):
        return "not a JSON object"
    for key in TEXT + NUMBER:
        kind = str if key in TEXT else (int, float)
        if not isinstance(r.get(key), kind) or isinstance(r.get(key), bool):
            return f"'{key}' is missing or not a {'string' if kind is str else 'number'}"
    return None


def peers_in(records):
    """The peers that have a record among these, in PEERS' order (the 2-D case list has no
    cuTENSOR, the N-D one no cuBLAS)."""
    present = {r["kernel"] for r in records}
    return [p for p in PEERS if p in present]


def load(paths):
    """Every record of the given JSON-lines files, in file order; a file that cannot be read,
    or a line that is not a record, ends the program with one line naming it."""
    records = []
    for path in paths:
        try:
            with open(path) as f:
                for number, line in enumerate(f, 1):
                    if not line.strip():
                        continue
                    try:
                        r = json.loads(line)
                    except json.JSONDecodeError as e:
                        fail(f"{path}:{number}: not JSON: {e}")
                    if why := not_a_record(r):
                        fail(f"{path}:{number}: not a record: {why}")
                    records.append(r)
        except OSError as e:
            fail(f"cannot read {path}: {e.strerror or e}")
        except UnicodeDecodeError as e:
            fail(f"cannot read {path}: {e}")
    return records


def by_case(records):
    """{case label: [records]} in order of first appearance."""
    cases = {}
    for r in records:
        cases.setdefault(r["case"], []).append(r)
    return cases


def pick(rows, kernel):
    """The record of one kernel in one case (the last one written), or None."""
    found = [r for r in rows if r["kernel"] == kernel]
    return found[-1] if found else None


def best_named(rows):
    """The fastest named xpose kernel of a case (not `auto`), or None."""
    named = [r for r in rows if r["role"] == "xpose" and r["kernel"] != "auto"]
    return max(named, key=lambda r: r["gbps"]) if named else None
