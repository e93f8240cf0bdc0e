#!/bin/bash
# s95: short_lines (new) vs 8dec66e (old p93): sweep tests + sanitizers on it, the draws it targets, N-D and 2-D A/B
cd "$(dirname "$0")/.." ; tar xJf .lab/p93.txz -C .lab; tar xJf .lab/p95.txz -C .lab
O=$PWD/.lab/p93; N=$PWD/.lab/p95; R=$OUT/r; mkdir -p $R
export LD_LIBRARY_PATH=/usr/local/cuda/lib64
timeout 120 $N/xpose_gpu_tests --gtest_filter='*Sweep*short_lines*:*Sweep*auto*:*Sweep*skinny*' --gtest_brief=1 > $R/tests.log 2>&1; echo "sweep rc $? $(tail -2 $R/tests.log | tr '\n' ' ')" > $R/table
for tool in memcheck racecheck; do
  timeout 90 compute-sanitizer --tool $tool --error-exitcode 9 $N/xpose_gpu_tests --gtest_filter='*Sweep*short_lines_1B:*Sweep*short_lines_2B' --gtest_brief=1 > $R/$tool.log 2>&1; echo "$tool rc $? $(grep -E 'ERROR SUMMARY|PASSED|FAILED' $R/$tool.log | tr '\n' ' ')" >> $R/table
done
while read dt ex pm; do for b in o n; do B=$O; [ $b = n ] && B=$N
  timeout 30 $B/xpose-permute-bench --dtype $dt --extents $ex --perm $pm --kernel auto --check --reps 20 --no-host-time --json $R/cases-$b.jsonl >> $R/cases-$b.txt 2>&1
done; done <<'L'
u8 54,3240,2356 1,2,0
u8 19,1303,35,246 1,2,3,0
u8 12,662,388,21 3,0,1,2
fp16 12,662,388,21 3,0,1,2
fp16 38,3237,21,6 1,2,3,0
u8 122,281,179,15 2,1,3,0
u8 87,1112,6,57,6,2 2,3,1,4,5,0
fp32 9,1000,1003 1,2,0
fp16 1000,1003,50 2,0,1
L
python3 bench/table.py ab $R/cases-o.jsonl $R/cases-n.jsonl > $R/ab-cases.txt 2>&1
python3 - $R/cases-o.jsonl $R/cases-n.jsonl >> $R/table <<'P'
import json,sys
d={}
for i,f in enumerate(sys.argv[1:]):
    for l in open(f):
        r=json.loads(l)
        if r['kernel']=='auto': d.setdefault(r['case'],[None,None])[i]=(r['pct_copy'],r['chosen'])
for c,(o,n) in d.items(): print(f"{c[:44]:44s} old {o[0]:5.1f} {o[1]:22s} new {n[0]:5.1f} {n[1]}")
P
grep -c FAILED $R/cases-n.txt | sed 's/^/cases FAILED lines: /' >> $R/table
for i in 1 2; do S=$(od -An -N4 -tu4 /dev/urandom | tr -d ' ')
  for b in o n; do B=$O; [ $b = n ] && B=$N
    timeout 100 $B/xpose-permute-bench --random 500 --seed $S --reps 10 --no-host-time --json $R/nd-$b-$S.jsonl > $R/nd-$b-$S.txt 2>&1
  done
  echo "== N-D seed $S" >> $R/table; python3 bench/table.py ab $R/nd-o-$S.jsonl $R/nd-n-$S.jsonl > $R/ab-nd-$S.txt 2>&1; sed -n 3,4p $R/ab-nd-$S.txt >> $R/table; grep short_lines $R/nd-n-$S.txt | head -0
  S=$(od -An -N4 -tu4 /dev/urandom | tr -d ' ')
  for b in o n; do B=$O; [ $b = n ] && B=$N
    timeout 120 $B/xpose-bench --random 500 --seed $S --kernel auto --no-peers --reps 10 --no-progress --json $R/2d-$b-$S.jsonl > $R/2d-$b-$S.txt 2>&1
  done
  echo "== 2-D seed $S" >> $R/table; python3 bench/table.py ab $R/2d-o-$S.jsonl $R/2d-n-$S.jsonl > $R/ab-2d-$S.txt 2>&1; sed -n 3,4p $R/ab-2d-$S.txt >> $R/table
done
python3 - $R >> $R/table <<'P'
import json,sys,glob,collections
R=sys.argv[1]
for f in sorted(glob.glob(R+'/*-n-*.jsonl')):
    o=f.replace('-n-','-o-'); old={}
    for l in open(o):
        r=json.loads(l)
        if r['kernel']=='auto': old[r['case']]=(r['pct_copy'],r['chosen'])
    for l in open(f):
        r=json.loads(l)
        if r['kernel']=='auto' and r['chosen']=='short_lines' and r['case'] in old:
            print(f"moved {old[r['case']][0]:5.1f} ({old[r['case']][1]}) -> {r['pct_copy']:5.1f} {r['case'][:60]}")
P
cat $R/table
cd $OUT && tar czf x.tgz r && rm -rf r
