#!/bin/bash
# s89: permute_gather (d75921e + quantize variant s2h1): the 23 N-D draws PyTorch led in s81/s85, every kernel + torch; Permute and Quantize GPU tests
cd "$(dirname "$0")/.." ; [ -d .lab/p88 ] || tar xJf .lab/p88.txz -C .lab
D=$PWD/.lab/p88; R=$OUT/r; mkdir -p $R
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:$D
timeout 280 $D/xpose_gpu_tests --gtest_filter='Permute*:Quantize*' --gtest_brief=1 > $R/tests.log 2>&1; echo "tests rc $? $(tail -1 $R/tests.log)" > $R/head
while read dt ex pm; do
  [ -z "$dt" ] && continue
  timeout 40 $D/xpose-permute-bench --dtype $dt --extents $ex --perm $pm --reps 20 --no-host-time --json $R/nd.jsonl >> $R/nd.txt 2>&1
  timeout 40 python3 bench/peers.py --bench $D/xpose-permute-bench --dtype $dt --extents $ex --perm $pm --no-cupy --reps 20 --json $R/ndp.jsonl >> $R/ndp.txt 2>&1
done <<'L'
c128 18,51,267,2,4,13 3,2,4,1,5,0
fp64 78,2191,3,5 2,3,0,1
fp64 31,186,18,126 2,1,3,0
c128 101,1099,22,12 1,0,3,2
c128 4,7,40,3,258,13 4,2,5,1,0,3
fp64 39,2917,63 1,2,0
fp16 62,2392,129 1,2,0
c128 2191,6,11,9 0,3,1,2
c128 2,4,130,1648,6 0,3,2,4,1
fp64 384,7,237,63 0,2,1,3
fp64 6,3,3,23,783,7 3,4,5,1,0,2
fp64 21,192,48,5,6 2,1,4,3,0
fp32 66,49,227,5,2,7 4,2,3,1,5,0
u8 205,620,16,17 1,2,0,3
fp64 6,2,2630,122,2 3,2,0,4,1
c128 29,1738,46,2 0,1,3,2
fp64 13,618,189,2 0,1,3,2
fp64 551,13,62,6 0,1,3,2
c128 5,41,639,3,16 3,0,2,4,1
c128 116,2,6,74,6,18 0,3,2,1,5,4
fp64 710,3,7,31,7 3,0,4,2,1
fp64 767,18,2,3,158,5 3,1,2,4,0,5
fp64 2,39,4,3,283,245 1,2,0,4,5,3
L
python3 bench/table.py cases $R/nd.jsonl $R/ndp.jsonl > $R/cases-nd.txt 2>&1
python3 - $R/nd.jsonl $R/ndp.jsonl >> $R/head <<'P'
import json,sys,collections
best=collections.defaultdict(dict)
for f in sys.argv[1:]:
    for l in open(f):
        r=json.loads(l)
        if r['role']=='ceiling': continue
        k=r['kernel'] if r['role']=='xpose' else r['role']
        best[r['case']][k]=r['pct_copy']
for c,d in best.items():
    t=d.get('torch') or d.get('peer'); a=d.get('auto'); g=d.get('permute_gather')
    top=max((v,k) for k,v in d.items() if k not in ('auto','torch','peer'))
    print(f"{c.split(' random')[0][:40]:40s} auto {a or 0:5.1f} gather {g or 0:5.1f} best {top[1]} {top[0]:5.1f} torch {t or 0:5.1f}")
P
cat $R/head
cd $OUT && tar czf x.tgz r && rm -rf r
