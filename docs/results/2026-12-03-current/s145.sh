#!/bin/bash
# s145 (from the repository root): current scaling's amax pass. p5 = bd2119b (before); p7 = the amax pass with
# every load of a round in flight and one atomic a block; p6 = p7 + the quantize kernel launched early
# (programmatic dependent launch). The Quantize GPU tests and memcheck on p6, --check of current scaling, then
# the bench (current scaling) p5 p6 p7 p7 p6 p5, every recipe once on p6, ncu on the amax pass; the Python
# quantize and JAX tests and quantize_peers (current, delayed) on p6's library.
cd "$(dirname "$0")/../../.." ; tar xJf .lab/p67.txz -C .lab
R=$OUT/r; mkdir -p $R
export LD_LIBRARY_PATH=/usr/local/cuda/lib64
timeout 60 .lab/p6/xpose_gpu_tests --gtest_filter='Quantize.*' > $R/gtest.txt 2>&1; echo "gtest rc $?: $(grep -E '^\[  (PASSED|FAILED) ' $R/gtest.txt | tr '\n' ' ')"
timeout 150 compute-sanitizer --tool memcheck --error-exitcode 9 .lab/p6/xpose_gpu_tests --gtest_filter='Quantize.*' > $R/memcheck.txt 2>&1; echo "memcheck rc $?: $(grep -E 'ERROR SUMMARY' $R/memcheck.txt)"
timeout 100 compute-sanitizer --tool racecheck --error-exitcode 9 .lab/p6/xpose_gpu_tests --gtest_filter='Quantize.GpuManyTiles*' > $R/racecheck.txt 2>&1; echo "racecheck rc $?: $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' $R/racecheck.txt | head -2 | tr '\n' ' ')"
for s in 1000x3000 4096x4096 777x1234 16384x8192; do timeout 100 .lab/p6/xpose-quantize-bench --check --shape $s --reps 3 --recipe current,delayed --input bf16,fp32,fp16 > $R/check-$s.txt 2>&1; echo "check $s rc $?: $(grep -c passed $R/check-$s.txt) passed"; done
for v in p5 p6 p7 p7 p6 p5; do timeout 60 .lab/$v/xpose-quantize-bench --reps 20 --recipe current --json $R/$v.jsonl > $R/$v-$RANDOM.txt 2>&1; echo "$v rc $?"; done
timeout 90 .lab/p6/xpose-quantize-bench --reps 20 --json $R/p6-all.jsonl > $R/p6-all.txt 2>&1; echo "p6 all rc $?"
for v in p5 p6; do timeout 60 ncu --clock-control none -k regex:quantize -c 6 --metrics gpu__time_duration.sum,dram__bytes_read.sum,lts__t_sector_hit_rate.pct .lab/$v/xpose-quantize-bench --shape 4096x4096 --recipe current --outputs both --input bf16 --reps 2 --warmup 0 > $R/ncu-$v.txt 2>&1; echo "ncu $v rc $?"; done
export XLA_PYTHON_CLIENT_PREALLOCATE=false XPOSE_COMMIT=p6
site=$PWD/build-py/site; rm -rf build-py
{ cmake -S python -B build-py -G Ninja -DCMAKE_BUILD_TYPE=Release -DXPOSE_LIBRARY=$PWD/.lab/p6/libxpose.a &&
  cmake --build build-py -j 16 && cmake --install build-py --prefix $site && cp python/xpose/*.py $site/xpose/ &&
  python3 -m pip install --quiet --no-index --no-deps --target $site .deps/wheels/*.whl; } > $R/build.txt 2>&1
echo "build rc $?"
(cd build-py && PYTHONPATH=$site HYPOTHESIS_PROFILE=ci timeout 150 python3 -m pytest -q -rs ../python/tests/test_inplace_quantize.py ../python/tests/test_jax.py) > $R/pytest.txt 2>&1
echo "pytest rc $?: $(tail -1 $R/pytest.txt)"
PYTHONPATH=$site timeout 120 python3 bench/quantize_peers.py --recipe current delayed --json $R/peers.jsonl > $R/peers.txt 2>&1; echo "peers rc $?"
python3 - $R <<'PY'
import json, sys, collections, glob, statistics
R = sys.argv[1]
for v in ("p5", "p7", "p6"):
    t = collections.defaultdict(list)
    for l in open(f"{R}/{v}.jsonl"):
        r = json.loads(l)
        if r["role"] == "xpose": t[r["case"]].append(r["pct_copy"])
    best = {c: max(x) for c, x in t.items()}
    for inp in ("bf16", "fp32"):
        for o in ("both", "rows", "columns"):
            xs = [p for c, p in best.items() if c.startswith(inp) and c.endswith(o)]
            print(f"{v} {inp} {o:8s} median {statistics.median(xs):5.1f} worst {min(xs):5.1f}")
PY
cat $R/peers.txt
grep -E "quantize|gpu__time|dram__bytes|hit_rate" $R/ncu-*.txt | head -40
cd $OUT && tar czf x.tgz r && rm -rf r
