#!/bin/bash
# s137 (from the repository root; q1 = 5bba9d9, q2 = q1 with the staged kernel persistent: 4 blocks an SM (3 for fp32)
# each walking tiles gridDim.x apart, the next whole tile staged by cp.async as soon as the current one's x is read
# (after the columns pass for 2-byte inputs, at the tile's end otherwise), the amax one atomic a block, 1 x K's
# column words read again after their blocks meet instead of held; q3 = q2 with ScaleIndex::local branch-free):
# the Quantize GPU tests at q3, memcheck on them; --check of every recipe on 4096x4096; the default case list q1,
# q2, q3, q3, q2, q1; Nsight Compute on q3's bf16 8192x8192 MXFP8 both.
cd "$(dirname "$0")/../../.." ; for b in q1 q2 q3; do tar xJf .lab/$b.txz -C .lab; done
R=$OUT/r; mkdir -p $R
export LD_LIBRARY_PATH=/usr/local/cuda/lib64
timeout 200 .lab/q3/xpose_gpu_tests --gtest_filter='Quantize.*' > $R/tests.txt 2>&1; echo "tests rc $?"; tail -3 $R/tests.txt
grep -E '^\[  FAILED|differs' $R/tests.txt | head
timeout 300 compute-sanitizer --tool memcheck --error-exitcode 9 .lab/q3/xpose_gpu_tests --gtest_filter='Quantize.Gpu*' > $R/memcheck.txt 2>&1; echo "memcheck rc $?: $(grep -E 'ERROR SUMMARY|PASSED|FAILED' $R/memcheck.txt | tr '\n' ' ')"
timeout 120 .lab/q3/xpose-quantize-bench --shape 4096x4096 --input bf16 --input fp32 --input fp16 --check --reps 3 > $R/check.txt 2>&1; echo "check rc $?"; grep -ciE 'mismatch|differ|fail' $R/check.txt
for b in q1 q2 q3 q3 q2 q1; do timeout 150 .lab/$b/xpose-quantize-bench --reps 20 --json $R/$b.jsonl > $R/$b-$RANDOM.txt 2>&1; echo "$b rc $?"; done
timeout 60 ncu --clock-control none --kernel-name regex:quantize_staged --launch-count 1 --section SpeedOfLight --section LaunchStats --section WarpStateStats --section InstructionStats \
  .lab/q3/xpose-quantize-bench --shape 8192x8192 --input bf16 --recipe mxfp8 --outputs both --reps 1 --warmup 0 > $R/ncu.txt 2>&1
grep -E '^ +(Duration|DRAM Throughput|Executed Instructions|Registers Per Thread|Issue Slots Busy) ' $R/ncu.txt
python3 - $R <<'PY'
import json,sys,collections,statistics as st
R=sys.argv[1]; v=collections.defaultdict(lambda: collections.defaultdict(list))
for b in ['q1','q2','q3']:
    for l in open(f'{R}/{b}.jsonl'):
        j=json.loads(l)
        if j.get('role')=='xpose': v[b][j['case']].append(j['pct_copy'])
keys=sorted(set(v['q1'])&set(v['q2'])&set(v['q3'])); g=collections.defaultdict(list)
for k in keys:
    t=k.split(); g[(t[0],t[2],t[3])].append((max(v['q1'][k]),max(v['q2'][k]),max(v['q3'][k])))
print('input recipe outputs: q1 / q2 / q3 median, then worst (best of two runs each)')
for k in sorted(g):
    c=list(zip(*g[k]))
    print(f'{k[0]:5} {k[1]:8} {k[2]:8} ' + ' / '.join(f'{st.median(x):5.1f}' for x in c) + '   ' + ' / '.join(f'{min(x):5.1f}' for x in c))
c=[[max(v[b][k]) for k in keys] for b in ['q1','q2','q3']]
print(f'all {len(keys)}: median ' + ' / '.join(f'{st.median(x):.1f}' for x in c) + ', worst ' + ' / '.join(f'{min(x):.1f}' for x in c))
PY
cd $OUT && tar czf x.tgz r && rm -rf r
