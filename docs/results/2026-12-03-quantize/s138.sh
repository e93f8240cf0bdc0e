#!/bin/bash
# s138 (from the repository root; q1 = 5bba9d9, q4 = q1 with ScaleIndex::local branch-free and the many-tiles GPU
# test, the tree committed after this run): the Quantize GPU tests at q4, memcheck and racecheck on them; --check
# of every recipe on 4096x4096; the default case list q1, q4, q4, q1; Nsight Compute on q4's bf16 8192x8192 MXFP8
# both.
cd "$(dirname "$0")/../../.." ; for b in q1 q4; do tar xJf .lab/$b.txz -C .lab; done
R=$OUT/r; mkdir -p $R
export LD_LIBRARY_PATH=/usr/local/cuda/lib64
timeout 200 .lab/q4/xpose_gpu_tests --gtest_filter='Quantize.*' > $R/tests.txt 2>&1; echo "tests rc $?"; tail -3 $R/tests.txt
grep -E '^\[  FAILED|differs' $R/tests.txt | head
for tool in memcheck racecheck; do
  timeout 200 compute-sanitizer --tool $tool --error-exitcode 9 .lab/q4/xpose_gpu_tests --gtest_filter='Quantize.Gpu*' > $R/$tool.txt 2>&1; echo "$tool rc $?: $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|PASSED|FAILED' $R/$tool.txt | tr '\n' ' ')"
done
timeout 120 .lab/q4/xpose-quantize-bench --shape 4096x4096 --input bf16 --input fp32 --input fp16 --check --reps 3 > $R/check.txt 2>&1; echo "check rc $?"; grep -ciE 'mismatch|differ|fail' $R/check.txt
for b in q1 q4 q4 q1; do timeout 150 .lab/$b/xpose-quantize-bench --reps 20 --json $R/$b.jsonl > $R/$b-$RANDOM.txt 2>&1; echo "$b rc $?"; done
timeout 60 ncu --clock-control none --kernel-name regex:quantize_staged --launch-count 1 --section SpeedOfLight --section LaunchStats --section WarpStateStats --section InstructionStats \
  .lab/q4/xpose-quantize-bench --shape 8192x8192 --input bf16 --recipe mxfp8 --outputs both --reps 1 --warmup 0 > $R/ncu.txt 2>&1
grep -E '^ +(Duration|DRAM Throughput|Executed Instructions|Registers Per Thread|Issue Slots Busy) ' $R/ncu.txt
python3 - $R <<'PY'
import json,sys,collections,statistics as st
R=sys.argv[1]; v=collections.defaultdict(lambda: collections.defaultdict(list))
for b in ['q1','q4']:
    for l in open(f'{R}/{b}.jsonl'):
        j=json.loads(l)
        if j.get('role')=='xpose': v[b][j['case']].append(j['pct_copy'])
keys=sorted(set(v['q1'])&set(v['q4'])); g=collections.defaultdict(list)
for k in keys:
    t=k.split(); g[(t[0],t[2],t[3])].append((max(v['q1'][k]),max(v['q4'][k])))
print('input recipe outputs: q1 median / worst -> q4 median / worst (best of two runs each)')
for k in sorted(g):
    a=[x for x,_ in g[k]]; b=[y for _,y in g[k]]
    print(f'{k[0]:5} {k[1]:8} {k[2]:8} {st.median(a):5.1f} / {min(a):5.1f} -> {st.median(b):5.1f} / {min(b):5.1f}')
a=[max(v['q1'][k]) for k in keys]; b=[max(v['q4'][k]) for k in keys]
print(f'all {len(keys)}: median {st.median(a):.1f} -> {st.median(b):.1f}, worst {min(a):.1f} -> {min(b):.1f}')
PY
cd $OUT && tar czf x.tgz r && rm -rf r
