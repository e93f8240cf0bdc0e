#!/bin/bash
# s82: the 13 N-D draws PyTorch led by >5% in s81 (seed 1881866983) and 2 2-D cublasLt led: every kernel + peers
cd "$(dirname "$0")/.." ; tar xJf .lab/p81.txz -C .lab
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:$PWD/.lab/p81
B=$PWD/.lab/p81; R=$OUT/r; mkdir -p $R
K2="auto aligned_stores cute_padded cute_tma cute_vectorized_swizzled skinny smem_padded smem_swizzled tiny_batched tma_pipeline tma_swizzle128 vec_swizzled"
while read dt ex pm; do
  [ -z "$dt" ] && continue
  timeout 60 $B/xpose-permute-bench --dtype $dt --extents $ex --perm $pm --reps 20 --no-host-time --json $R/nd.jsonl >> $R/nd.txt 2>&1
  timeout 60 python3 bench/peers.py --bench $B/xpose-permute-bench --dtype $dt --extents $ex --perm $pm --no-cupy --reps 20 --json $R/ndp.jsonl >> $R/ndp.txt 2>&1
done <<'L'
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
for c in "c128 46x2x50402" "fp64 189x2x8034" "fp64 62x6x7163"; do set -- $c
  timeout 60 $B/xpose-bench --dtype $1 --shape $2 --kernel $K2 --reps 20 --no-progress --json $R/2d.jsonl >> $R/2d.txt 2>&1; done
timeout 60 $B/xpose-bench --dtype fp32 --shape 44143x35x52 --ld-src 60 --ld-dst 44181 --kernel $K2 --reps 20 --no-progress --json $R/2d.jsonl >> $R/2d.txt 2>&1
timeout 60 $B/xpose-bench --dtype fp64 --shape 16x27552x62 --kernel $K2 --reps 20 --no-progress --json $R/2d.jsonl >> $R/2d.txt 2>&1
python3 bench/table.py cases $R/nd.jsonl $R/ndp.jsonl > $R/cases-nd.txt 2>&1
python3 bench/table.py choice $R/nd.jsonl > $R/choice-nd.txt 2>&1
python3 bench/table.py cases $R/2d.jsonl > $R/cases-2d.txt 2>&1
cat $R/cases-nd.txt $R/cases-2d.txt > $R/table
cd $OUT && tar czf x.tgz r && rm -rf r
