#!/bin/bash
# s105: permute_packed element by element compiled for 4 blocks an SM (p103 = 241aa4c: 64 registers, 44-64 bytes spilled), 3 (p104: 80, 12 spilled), 2 (p105: 94-96, none):
# the 11 of s98's worst draws that permute_packed moves element by element (.lab/elem.txt; s105-elem.txt in the records), then 200 N-D draws (seed 3170284337) through the choice, each build
cd "$(dirname "$0")/.." ; for p in p103 p104 p105; do tar xJf .lab/$p.txz -C .lab; done
R=$OUT/r; mkdir -p $R
export LD_LIBRARY_PATH=/usr/local/cuda/lib64
while read dt ex pm; do
  for p in p103 p104 p105; do
    timeout 30 .lab/$p/xpose-permute-bench --dtype $dt --extents $ex --perm $pm --kernel permute_packed --check --reps 20 --no-host-time --explain --json $R/w-$p.jsonl >> $R/w-$p.txt 2>&1
  done
done < .lab/elem.txt
for p in p103 p104 p105; do
  timeout 60 .lab/$p/xpose-permute-bench --random 200 --seed 3170284337 --no-host-time --json $R/nd-$p.jsonl > $R/nd-$p.txt 2>&1
done
python3 - $R > $R/table <<'P'
import json,sys
R=sys.argv[1]
d={}
for p in ['p103','p104','p105']:
    for l in open(f'{R}/w-{p}.jsonl'):
        r=json.loads(l)
        if r['role']=='xpose': d.setdefault(r['case'],{})[p]=r['pct_copy']
for c,v in d.items(): print(f"{c[:44]:44s} " + " ".join(f"{v.get(p,0):5.1f}" for p in ['p103','p104','p105']))
P
python3 bench/table.py ab $R/nd-p103.jsonl $R/nd-p104.jsonl > $R/ab-104.md 2>&1
python3 bench/table.py ab $R/nd-p103.jsonl $R/nd-p105.jsonl > $R/ab-105.md 2>&1
echo "failed: $(grep -ic 'fail\|mismatch' $R/w-*.txt | tr '\n' ' ')" >> $R/table
cat $R/table; head -4 $R/ab-104.md | tail -2; grep "permute_packed" $R/ab-104.md | head; head -4 $R/ab-105.md | tail -2; grep "permute_packed" $R/ab-105.md | head
cd $OUT && tar czf x.tgz r && rm -rf r
