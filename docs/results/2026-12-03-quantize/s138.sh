#!/bin/bash
# s138 (from the repository root; q1 = 5bba9d9, q4 = q1 with ScaleIndex::local branch-free and the many-tiles GPU
# test: 6eef292; q5 = q4 with a whole tile staged in two cp.async groups, rows 0-63 and 64-127, the rows pass
# starting on the first): the Quantize GPU tests at q4 and q5, memcheck and racecheck at q5; --check of every
# recipe on 4096x4096 at q5; the default case list q1, q4, q5, q5, q4, q1; Nsight Compute on q5's bf16 8192x8192
# MXFP8 both.
cd "$(dirname "$0")/../../.." ; for b in q1 q4 q5; do tar xJf .lab/$b.txz -C .lab; done
R=$OUT/r; mkdir -p $R
export LD_LIBRARY_PATH=/usr/local/cuda/lib64
for b in q4 q5; do
  timeout 150 .lab/$b/xpose_gpu_tests --gtest_filter='Quantize.*' > $R/tests-$b.txt 2>&1; echo "$b tests rc $?"; tail -1 $R/tests-$b.txt
  grep -E '^\[  FAILED|differs' $R/tests-$b.txt | head -5
done
for tool in memcheck racecheck; do
  timeout 200 compute-sanitizer --tool $tool --error-exitcode 9 .lab/q5/xpose_gpu_tests --gtest_filter='Quantize.Gpu*' > $R/$tool.txt 2>&1; echo "$tool rc $?: $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|PASSED|FAILED' $R/$tool.txt | tr '\n' ' ')"
done
timeout 120 .lab/q5/xpose-quantize-bench --shape 4096x4096 --input bf16 --input fp32 --input fp16 --check --reps 3 > $R/check.txt 2>&1; echo "check rc $?"; grep -ciE 'mismatch|differ|fail' $R/check.txt
for b in q1 q4 q5 q5 q4 q1; do timeout 150 .lab/$b/xpose-quantize-bench --reps 20 --json $R/$b.jsonl > $R/$b-$RANDOM.txt 2>&1; echo "$b rc $?"; done
timeout 60 ncu --clock-control none --kernel-name regex:quantize_staged --launch-count 1 --section SpeedOfLight --section LaunchStats --section WarpStateStats --section InstructionStats \
  .lab/q5/xpose-quantize-bench --shape 8192x8192 --input bf16 --recipe mxfp8 --outputs both --reps 1 --warmup 0 > $R/ncu.txt 2>&1
grep -E '^ +(Duration|DRAM Throughput|Executed Instructions|Registers Per Thread|Issue Slots Busy) ' $R/ncu.txt
python3 - $R <<'PY'
import json,sys,collections,statistics as st
R=sys.argv[1]; B=['q1','q4','q5']; v=collections.defaultdict(lambda: collections.defaultdict(list))
for b in B:
    for l in open(f'{R}/{b}.jsonl'):
        j=json.loads(l)
        if j.get('role')=='xpose': v[b][j['case']].append(j['pct_copy'])
keys=sorted(set.intersection(*[set(v[b]) for b in B])); g=collections.defaultdict(list)
for k in keys:
    t=k.split(); g[(t[0],t[2],t[3])].append(tuple(max(v[b][k]) for b in B))
print('input recipe outputs: ' + ' / '.join(B) + ' median, then worst (best of two runs each)')
for k in sorted(g):
    c=list(zip(*g[k]))
    print(f'{k[0]:5} {k[1]:8} {k[2]:8} ' + ' / '.join(f'{st.median(x):5.1f}' for x in c) + '   ' + ' / '.join(f'{min(x):5.1f}' for x in c))
c=[[max(v[b][k]) for k in keys] for b in B]
print(f'all {len(keys)}: median ' + ' / '.join(f'{st.median(x):.1f}' for x in c) + ', worst ' + ' / '.join(f'{min(x):.1f}' for x in c))
PY
cd $OUT && tar czf x.tgz r && rm -rf r
