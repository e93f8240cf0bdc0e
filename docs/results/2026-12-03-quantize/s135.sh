#!/bin/bash
# s135 (from the repository root; q0 = ea51896, q1 = ea51896 + the staged kernel's leaner tile: the output kind a
# template parameter, the tile's row/column split by a fast divisor, each scale's place a tile base and a small
# offset, data_t's whole tiles stored without per-chunk bounds, E8M0 codes of normal amax in two operations):
# the Quantize GPU tests at q1, memcheck on them; --check of every recipe on 4096x4096; then the default case list
# (bf16 and fp32 in, every recipe and output set, 240 cases) q0, q1, q1, q0; Nsight Compute on q1's bf16 8192x8192
# MXFP8 both (the staged kernel's executed instructions).
cd "$(dirname "$0")/../../.." ; for b in q0 q1; do tar xJf .lab/$b.txz -C .lab; done
R=$OUT/r; mkdir -p $R
export LD_LIBRARY_PATH=/usr/local/cuda/lib64
timeout 200 .lab/q1/xpose_gpu_tests --gtest_filter='Quantize.*' > $R/tests.txt 2>&1; echo "tests rc $?"; tail -3 $R/tests.txt
grep -E '^\[  FAILED|differs' $R/tests.txt | head
timeout 240 compute-sanitizer --tool memcheck --error-exitcode 9 .lab/q1/xpose_gpu_tests --gtest_filter='Quantize.Gpu*' > $R/memcheck.txt 2>&1; echo "memcheck rc $?: $(grep -E 'ERROR SUMMARY|PASSED|FAILED' $R/memcheck.txt | tr '\n' ' ')"
timeout 120 .lab/q1/xpose-quantize-bench --shape 4096x4096 --input bf16 --input fp32 --input fp16 --check --reps 3 > $R/check.txt 2>&1; echo "check rc $?"; grep -ciE 'mismatch|differ|fail' $R/check.txt
for b in q0 q1 q1 q0; do timeout 150 .lab/$b/xpose-quantize-bench --reps 20 --json $R/$b.jsonl > $R/$b-$RANDOM.txt 2>&1; echo "$b rc $?"; done
timeout 60 ncu --clock-control none --kernel-name regex:quantize_staged --launch-count 1 --section SpeedOfLight --section LaunchStats --section WarpStateStats --section InstructionStats \
  .lab/q1/xpose-quantize-bench --shape 8192x8192 --input bf16 --recipe mxfp8 --outputs both --reps 1 --warmup 0 > $R/ncu.txt 2>&1
grep -E '^ +(Duration|DRAM Throughput|Executed Instructions|Registers Per Thread|Issue Slots Busy) ' $R/ncu.txt
python3 - $R <<'PY'
import json,sys,collections,statistics as st
R=sys.argv[1]; v=collections.defaultdict(lambda: collections.defaultdict(list))
for b in ['q0','q1']:
    for l in open(f'{R}/{b}.jsonl'):
        j=json.loads(l)
        if j.get('role')=='xpose': v[b][j['case']].append(j['pct_copy'])
keys=sorted(set(v['q0'])&set(v['q1'])); g=collections.defaultdict(list)
for k in keys:
    t=k.split(); g[(t[0],t[2],t[3])].append((max(v['q0'][k]),max(v['q1'][k])))
print('input recipe outputs: q0 median / worst -> q1 median / worst (best of two runs each)')
for k in sorted(g):
    a=[x for x,_ in g[k]]; b=[y for _,y in g[k]]
    print(f'{k[0]:5} {k[1]:8} {k[2]:8} {st.median(a):5.1f} / {min(a):5.1f} -> {st.median(b):5.1f} / {min(b):5.1f}')
a=[max(v['q0'][k]) for k in keys]; b=[max(v['q1'][k]) for k in keys]
print(f'all {len(keys)}: median {st.median(a):.1f} -> {st.median(b):.1f}, worst {min(a):.1f} -> {min(b):.1f}')
PY
cd $OUT && tar czf x.tgz r && rm -rf r
