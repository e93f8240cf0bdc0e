#!/bin/bash
# s88: quantize_staged persistent/pipelined variants vs base (d75921e): bf16 both outputs, LLM shapes, 2 rounds; fp16/fp32 1x128; --check each
cd "$(dirname "$0")/.." ; tar xJf .lab/p88.txz -C .lab
D=$PWD/.lab/p88; R=$OUT/r; mkdir -p $R
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:$D
V="base s1h0 s2h0 s2h1 s3h1"; RV="s3h1 s2h1 s2h0 s1h0 base"
nvidia-smi --query-gpu=name,clocks.max.sm,clocks.max.mem --format=csv > $R/gpu.txt
for round in 1 2; do for rc in 1x128 mxfp8 delayed 128x128; do for v in $([ $round = 1 ] && echo $V || echo $RV); do
  timeout 50 $D/q-$v --input bf16 --recipe $rc --outputs both --reps 20 --json $R/q-$v.jsonl > /dev/null 2>>$R/err.txt || echo "$v $rc rc $?" >> $R/err.txt
done; done; done
for in_ in fp16 fp32; do for rc in 1x128 mxfp8; do for v in base s1h0 s2h0 s3h1; do
  timeout 50 $D/q-$v --input $in_ --recipe $rc --outputs both --reps 20 --json $R/q-$v.jsonl > /dev/null 2>>$R/err.txt || echo "$v $in_ $rc rc $?" >> $R/err.txt
done; done; done
python3 - $R $V > $R/table <<'P'
import json,sys,statistics,collections
R=sys.argv[1]; V=sys.argv[2:]
g=collections.defaultdict(lambda: collections.defaultdict(list))
for v in V:
    for l in open(f'{R}/q-{v}.jsonl'):
        r=json.loads(l)
        if r['role']=='xpose': g[v][r['case']].append(r['pct_copy'])
groups=collections.defaultdict(list)
for c in g['base']:
    w=c.split(); groups[' '.join([w[0]]+w[2:4])].append(c)
print('group', *V, sep=' | ')
for k,cs in groups.items():
    row=[]
    for v in V:
        vals=[statistics.mean(g[v][c]) for c in cs if c in g[v]]
        row.append(f"{statistics.median(vals):.1f}/{min(vals):.1f}" if vals else '-')
    print(k, *row, sep=' | ')
print('per case 1x128 bf16:')
for c in groups.get('bf16 1x128 both',[]): print(c, *[f"{statistics.mean(g[v][c]):.1f}" for v in V])
P
for v in $V; do
  timeout 90 $D/q-$v --input bf16 fp16 fp32 --recipe 1x128 mxfp8 delayed 128x128 current --outputs both rows columns --shape 3001x4099 --reps 2 --check > $R/check-$v.txt 2>&1; echo "check $v rc $? failed $(grep -c FAILED $R/check-$v.txt) passed $(grep -c passed $R/check-$v.txt)" >> $R/table
done
timeout 60 $D/q-s2h1 --input bf16 --recipe 1x128 mxfp8 current --outputs both --shape 20000x5000 --reps 2 --check > $R/check-big.txt 2>&1; echo "check big s2h1 rc $? failed $(grep -c FAILED $R/check-big.txt) passed $(grep -c passed $R/check-big.txt)" >> $R/table
cat $R/err.txt | head -5 >> $R/table
cat $R/table
cd $OUT && tar czf x.tgz r && rm -rf r
