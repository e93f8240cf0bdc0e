#!/bin/bash
# s106 (ran 2026-12-02 from .lab/: README): permute_packed's scattered stores (packed-scatter.diff; build it as .lab/p106, HEAD without it as .lab/p103):
# the GPU tests Permute* with it, memcheck and racecheck on the packed tests; every N-D kernel's draws of s98's worst list
# through permute_packed and the choice, old and new (new checked); 500 N-D draws through the choice, old and new (bench/table.py ab)
cd "$(dirname "$0")/.." ; for p in p103 p106; do tar xJf .lab/$p.txz -C .lab; done
O=$PWD/.lab/p103; N=$PWD/.lab/p106; R=$OUT/r; mkdir -p $R
export LD_LIBRARY_PATH=/usr/local/cuda/lib64
timeout 200 $N/xpose_gpu_tests --gtest_filter='Permute*' --gtest_brief=1 > $R/tests.log 2>&1; echo "tests rc $? $(tail -2 $R/tests.log | tr '\n' ' ')" > $R/head
for tool in memcheck racecheck; do
  timeout 120 compute-sanitizer --tool $tool $N/xpose-permute-bench --dtype u8 --extents 828,38,3100 --perm 0,2,1 --kernel permute_packed --check --reps 1 --warmup 0 --no-host-time > $R/$tool.log 2>&1
  echo "$tool rc $? $(tail -1 $R/$tool.log)" >> $R/head
done
while read dt ex pm; do
  timeout 30 $O/xpose-permute-bench --dtype $dt --extents $ex --perm $pm --kernel auto permute_packed --reps 20 --no-host-time --explain --json $R/w-O.jsonl >> $R/w-O.txt 2>&1
  timeout 30 $N/xpose-permute-bench --dtype $dt --extents $ex --perm $pm --kernel auto permute_packed --check --reps 20 --no-host-time --explain --json $R/w-N.jsonl >> $R/w-N.txt 2>&1
done < docs/results/2026-12-02-gather/s98-worst.txt
for b in O N; do d=${!b}
  timeout 60 $d/xpose-permute-bench --random 500 --seed 2402185447 --no-host-time --json $R/nd-$b.jsonl > $R/nd-$b.txt 2>&1
done
python3 - $R > $R/table <<'P'
import json,sys
R=sys.argv[1]; d={}
for b in 'ON':
    for l in open(f'{R}/w-{b}.jsonl'):
        r=json.loads(l)
        if r['role']=='xpose': d.setdefault(r['case'],{})[b+r['kernel']]=r['pct_copy']
for c,v in d.items():
    print(f"{c[:44]:44s} packed {v.get('Opermute_packed',0):5.1f} -> {v.get('Npermute_packed',0):5.1f}   auto {v.get('Oauto',0):5.1f} -> {v.get('Nauto',0):5.1f}")
P
python3 bench/table.py ab $R/nd-O.jsonl $R/nd-N.jsonl > $R/ab.md 2>&1
echo "failed: $(grep -ic 'fail\|mismatch' $R/w-*.txt | tr '\n' ' ')" >> $R/table
cat $R/head $R/table; head -4 $R/ab.md; grep permute_packed $R/ab.md
cd $OUT && tar czf x.tgz r && rm -rf r
