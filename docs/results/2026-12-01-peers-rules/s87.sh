#!/bin/bash
# s87: quantize code buffer keyed by column group: old f49e6e4 (p86) vs new 8b3f21b (p87), bf16 both outputs, LLM shapes; check; quantize GPU tests
cd "$(dirname "$0")/.." ; tar xJf .lab/p86.txz -C .lab; tar xJf .lab/p87.txz -C .lab
O=$PWD/.lab/p86; N=$PWD/.lab/p87; R=$OUT/r; mkdir -p $R
run() { LD_LIBRARY_PATH=/usr/local/cuda/lib64:$1 "${@:2}"; }
for rc in 1x128 mxfp8 delayed 128x128; do for b in o n; do D=$O; [ $b = n ] && D=$N
  run $D timeout 50 $D/xpose-quantize-bench --input bf16 --recipe $rc --outputs both --reps 20 --json $R/q-$b.jsonl > /dev/null 2>>$R/err.txt
done; done
python3 - $R/q-o.jsonl $R/q-n.jsonl > $R/table <<'P'
import json,sys,statistics,collections
def load(f):
    d={}
    for l in open(f):
        r=json.loads(l)
        if r['role']=='xpose': d[r['case']]=r['pct_copy']
    return d
o,n=load(sys.argv[1]),load(sys.argv[2])
g=collections.defaultdict(list)
for c in o:
    if c in n: w=c.split(); g[' '.join([w[0]]+w[2:4])].append((o[c],n[c],c))
for k,v in g.items():
    print(f"{k}: median {statistics.median(a for a,_,_ in v):.1f} -> {statistics.median(b for _,b,_ in v):.1f}, worst {min(a for a,_,_ in v):.1f} -> {min(b for _,b,_ in v):.1f} ({len(v)})")
for c in list(o)[:3]: print(c)
P
run $N timeout 60 $N/xpose-quantize-bench --input bf16 fp16 fp32 --recipe 1x128 mxfp8 delayed 128x128 current --outputs both rows columns --shape 3001x4099 --reps 2 --check > $R/check.txt 2>&1; echo "check rc $? failed $(grep -c FAILED $R/check.txt) passed $(grep -c passed $R/check.txt)" >> $R/table
run $N timeout 100 $N/xpose_gpu_tests --gtest_filter='Quantize*' --gtest_brief=1 > $R/tests.log 2>&1; echo "tests rc $? $(tail -1 $R/tests.log)" >> $R/table
cat $R/table
cd $OUT && tar czf x.tgz r && rm -rf r
