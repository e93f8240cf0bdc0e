#!/bin/bash
# s112 (not run; from .lab/, with .lab/p113: xpose-permute-bench built at HEAD, stripped, tarred): wide-fill.diff's question.
# permute_aligned_stores' fill (rules contiguous_sides and filled_transposes, and the fusions it takes) is that of the tile of
# shifted rows, while bytes from aligned rows run in the wide tile (twice the columns); with the wide tile's fill the choice
# moves 48 of 9840 u8 draws (seeds 15344337384778175916, first 8000 listed, and 3940109119445752811, 40000;
# s112-moved.txt), between permute_packed and permute_aligned_stores both ways. Both kernels and the choice on each, two rounds.
cd "$(dirname "$0")/.." ; tar xJf .lab/p113.txz -C .lab
N=$PWD/.lab/p113; R=$OUT/r; mkdir -p $R
export LD_LIBRARY_PATH=/usr/local/cuda/lib64
while read dt ex pm; do
  timeout 30 $N/xpose-permute-bench --dtype $dt --extents $ex --perm $pm --kernel auto permute_packed permute_aligned_stores --reps 10 --rounds 2 --no-host-time --explain --json $R/m.jsonl >> $R/m.txt 2>&1
done < docs/results/2026-12-02-gather/s112-moved.txt
python3 - $R > $R/table <<'P'
import json,sys
R=sys.argv[1]; d={}
for l in open(f'{R}/m.jsonl'):
    r=json.loads(l)
    if r['role']=='xpose': d.setdefault(r['case'],{})[r['kernel']]=(r['pct_copy'],r.get('chosen'))
for c,v in d.items():
    g=lambda k: v.get(k,(0,''))[0]
    print(f"{c[:44]:44s} auto {g('auto'):5.1f} ({v.get('auto',(0,''))[1]})  packed {g('permute_packed'):5.1f}  aligned_stores {g('permute_aligned_stores'):5.1f}")
P
cat $R/table
cd $OUT && tar czf x.tgz r && rm -rf r
