"""Reading xpose-bench and peers.py records (JSON lines), for table.py and plot.py."""
import json

PEERS = ["cublas_geam", "cublasLt_transform", "torch", "cupy"]
PY_CEILINGS = {"torch_copy", "cupy_memcpy"}  # peers.py's own copy ceiling, measured in its process


def load(paths):
    """Every record of the given JSON-lines files, in file order."""
    records = []
    for path in paths:
        with open(path) as f:
            for number, line in enumerate(f, 1):
                if line.strip():
                    try:
                        records.append(json.loads(line))
                    except json.JSONDecodeError as e:
                        raise SystemExit(f"{path}:{number}: not JSON: {e}")
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
