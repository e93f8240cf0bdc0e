#!/bin/bash
# s107 (ran 2026-12-02 from .lab/: README): short-lines-next.diff (.lab/p107: xpose-bench, xpose_gpu_tests) against HEAD (.lab/p103 with xpose-bench): the byte
# de-interleave at 40 registers (48 on HEAD), a span's part windows into unaligned lines as aligned pieces (a byte a store on HEAD):
# the sweep tests of short_lines and memcheck on them; s101's de-interleave sides and s100's list, auto (HEAD's choice) and short_lines, checked
cd "$(dirname "$0")/.." ; for p in p103 p107; do tar xJf .lab/$p.txz -C .lab; done
O=$PWD/.lab/p103; N=$PWD/.lab/p107; R=$OUT/r; mkdir -p $R
export LD_LIBRARY_PATH=/usr/local/cuda/lib64
timeout 120 $N/xpose_gpu_tests --gtest_filter='*Sweep*short_lines*' --gtest_brief=1 > $R/tests.log 2>&1; echo "tests rc $? $(tail -2 $R/tests.log | tr '\n' ' ')" > $R/head
timeout 120 compute-sanitizer --tool memcheck $N/xpose_gpu_tests --gtest_filter='*Sweep*short_lines_1B*:*Sweep*short_lines_2B*' --gtest_brief=1 > $R/memcheck.log 2>&1; echo "memcheck rc $? $(tail -1 $R/memcheck.log)" >> $R/head
B="--no-peers --check --reps 20 --no-progress"
for sh in 3082272x21 1877232x55 1719441x35 2097152x32 1398096x48 3355440x20 2796192x24 1677712x40 3355441x20 2097153x32 1398097x48 26073x41 34747x67; do
  timeout 60 $O/xpose-bench --dtype u8 --shape $sh --kernel auto short_lines $B --json $R/o.jsonl >> $R/o.txt 2>&1
  timeout 60 $N/xpose-bench --dtype u8 --shape $sh --kernel short_lines $B --json $R/n.jsonl >> $R/n.txt 2>&1
done
python3 - $R > $R/table <<'P'
import json,sys
R=sys.argv[1]; d={}
for b in 'on':
    for l in open(f'{R}/{b}.jsonl'):
        r=json.loads(l)
        if r['role']=='xpose': d.setdefault(r['case'],{})[b+r['kernel']]=r['pct_copy']
for c,v in d.items(): print(f"{c[:30]:30s} auto {v.get('oauto',0):5.1f}  short_lines 48 regs {v.get('oshort_lines',0):5.1f} -> 40 regs {v.get('nshort_lines',0):5.1f}")
P
echo "failed: $(grep -ic 'fail\|mismatch' $R/o.txt $R/n.txt | tr '\n' ' ')" >> $R/table
cat $R/head $R/table
cd $OUT && tar czf x.tgz r && rm -rf r
