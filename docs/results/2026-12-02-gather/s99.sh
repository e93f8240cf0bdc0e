#!/bin/bash
# s99: (A) interleaves whose short side is a whole number of 16-byte vectors (rule short_lines leaves them): auto against short_lines and the tiles, 08ed1b0 (p98);
# (B) de-interleaves: short_lines with lanes along a line (p99) against lanes across lines (p98) and the choice
cd "$(dirname "$0")/.." ; tar xJf .lab/p98.txz -C .lab; tar xJf .lab/p99.txz -C .lab
O=$PWD/.lab/p98; N=$PWD/.lab/p99; R=$OUT/r; mkdir -p $R
export LD_LIBRARY_PATH=/usr/local/cuda/lib64
B="--no-peers --check --reps 20 --no-progress"
for dt in u8:16,32,48,64,80,96,112,128 fp16:16,24,32,40,48,56,64 fp32:12,16,20,24,28,32; do
  t=${dt%%:*}; for s in ${dt#*:}; do
    e=$(case $t in u8) echo 1;; fp16) echo 2;; fp32) echo 4;; esac)
    c=$(( (128 << 20) / (s * e) ))
    timeout 60 $O/xpose-bench --dtype $t --shape ${s}x$c --kernel auto short_lines vec_swizzled aligned_stores cute_vectorized_swizzled $B --json $R/a.jsonl >> $R/a.txt 2>&1
    c=$(( c + 1 ))
    timeout 60 $O/xpose-bench --dtype $t --shape ${s}x$c --kernel auto short_lines vec_swizzled aligned_stores cute_vectorized_swizzled $B --json $R/a.jsonl >> $R/a.txt 2>&1
  done
done
while read dt sh; do
  timeout 60 $O/xpose-bench --dtype $dt --shape $sh --kernel auto short_lines $B --json $R/bo.jsonl >> $R/bo.txt 2>&1
  timeout 60 $N/xpose-bench --dtype $dt --shape $sh --kernel short_lines $B --json $R/bn.jsonl >> $R/bn.txt 2>&1
done <<'L'
u8 26073x41
fp16 50915x23
fp16 26496x63
u8 38375x49
fp64 61248x15
fp16 47744x25
fp16 63101x15
u8 43392x31
u8 34747x67
fp32 303075x21
u8 178530x125
u8 2373030x12
u8 1001559x108
u8 1719441x35
u8 1877232x55
fp32 875493x19
u8 3082272x21
fp16 1003000x50
fp64 15162x9x16
fp16 2208x13x3348
u8 2000000x32
u8 2000000x64
fp16 2000000x32
L
python3 - $R > $R/table <<'P'
import json,sys,collections
R=sys.argv[1]
def load(f):
    d=collections.defaultdict(dict)
    try:
        for l in open(f):
            r=json.loads(l)
            if r['role']=='xpose': d[r['case']][r['kernel']]=(r['pct_copy'],r.get('chosen',''),r.get('check',''))
    except FileNotFoundError: pass
    return d
a=load(R+'/a.jsonl')
print('(A) whole-vector short sides, interleave')
for c,k in a.items():
    au=k.pop('auto',(0,'',''))
    print(f"{c[:34]:34s} auto {au[0]:5.1f} {au[1][:18]:18s} | "+" ".join(f"{n[:14]} {v[0]:.1f}" for n,v in sorted(k.items())))
o=load(R+'/bo.jsonl'); n=load(R+'/bn.jsonl')
print('(B) de-interleave: choice, across (old), along (new)')
for c in o:
    au=o[c].get('auto',(0,'','')); so=o[c].get('short_lines',(0,'','')); sn=n.get(c,{}).get('short_lines',(0,'',''))
    print(f"{c[:34]:34s} auto {au[0]:5.1f} {au[1][:18]:18s} across {so[0]:5.1f} along {sn[0]:5.1f} {sn[2]}")
P
echo "fail lines: $(grep -il 'fail\|mismatch' $R/*.txt | tr '\n' ' ')" >> $R/table
cat $R/table
cd $OUT && tar czf x.tgz r && rm -rf r
