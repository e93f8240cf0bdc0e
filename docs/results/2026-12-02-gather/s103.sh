#!/bin/bash
# s103: the sides rule short_lines took in 387a416 (aligned lines), the choice (p103 = 241aa4c) against the N-D kernels permute_packed and permute_aligned_stores, 64 MiB, checked
cd "$(dirname "$0")/.." ; tar xJf .lab/p103.txz -C .lab
N=$PWD/.lab/p103; R=$OUT/r; mkdir -p $R
export LD_LIBRARY_PATH=/usr/local/cuda/lib64
for t in u8 fp16 fp32; do
  e=$(case $t in u8) echo 1;; fp16) echo 2;; fp32) echo 4;; esac)
  for sb in 12 16 20 24 32 40 48 56 64 80 96 112; do
    s=$((sb / e)); [ $((s * e)) -eq $sb ] && [ $s -ge 9 ] || continue
    c=$(( (64 << 20) / sb / 16 * 16 ))
    for ex in $s,$c $c,$s; do
      timeout 60 $N/xpose-permute-bench --dtype $t --extents $ex --perm 1,0 --kernel auto permute_packed permute_aligned_stores --check --reps 20 --no-host-time --json $R/a.jsonl >> $R/a.txt 2>&1
    done
  done
done
python3 - $R/a.jsonl > $R/table <<'P'
import json,sys,collections
d=collections.defaultdict(dict)
for l in open(sys.argv[1]):
    r=json.loads(l)
    if r['role']=='xpose': d[r['case']][r['kernel']]=(r['pct_copy'],r.get('chosen',''))
for c,k in d.items():
    a=k.pop('auto',(0,''))
    print(f"{c[:28]:28s} auto {a[0]:5.1f} {a[1][:14]:14s} | "+" ".join(f"{n[8:]} {v[0]:.1f}" for n,v in sorted(k.items())))
P
echo "failed: $(grep -ic 'fail\|mismatch' $R/a.txt)" >> $R/table
cat $R/table
cd $OUT && tar czf x.tgz r && rm -rf r
