#!/bin/bash
# s81: HEAD 63e2139 on the H200: N-D random 500 + PyTorch, 2-D random 500 + cuBLAS, ncu on 3 byte draws
cd "$(dirname "$0")/.." ; tar xJf .lab/p81.txz -C .lab
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:$PWD/.lab/p81
B=$PWD/.lab/p81; R=$OUT/r; mkdir -p $R
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv > $R/table
S1=$(od -An -N4 -tu4 /dev/urandom | tr -d ' '); S2=$(od -An -N4 -tu4 /dev/urandom | tr -d ' ')
timeout 120 $B/xpose-permute-bench --random 500 --seed $S1 --reps 10 --no-host-time --json $R/nd.jsonl > $R/nd.txt 2>&1
echo "nd $S1 rc $?: $(grep -m1 'random:' $R/nd.txt)" >> $R/table
timeout 240 python3 bench/peers.py --bench $B/xpose-permute-bench --random 500 --seed $S1 --no-cupy --reps 10 --json $R/ndp.jsonl > $R/ndp.txt 2>&1
echo "peers rc $?" >> $R/table
timeout 150 $B/xpose-bench --random 500 --seed $S2 --kernel auto --reps 10 --json $R/2d.jsonl --no-progress > $R/2d.txt 2>&1
echo "2d $S2 rc $?: $(grep -m1 'random:' $R/2d.txt)" >> $R/table
for c in "u8 754,1657,92 2,1,0" "u8 171,3,3477,99 3,2,1,0" "fp16 7,10,758,1362 3,2,1,0"; do
  set -- $c
  timeout 60 ncu --clock-control none --set full -k regex:permute --launch-count 1 $B/xpose-permute-bench --dtype $1 --extents $2 --perm $3 --kernel auto --reps 1 --warmup 0 --no-host-time > $R/ncu-$1-$2.txt 2>&1
done
python3 bench/table.py behind $R/nd.jsonl $R/ndp.jsonl > $R/behind-nd.txt 2>&1
python3 bench/table.py behind $R/2d.jsonl --min-mib 64 > $R/behind-2d.txt 2>&1
head -5 $R/behind-nd.txt >> $R/table; head -6 $R/behind-2d.txt >> $R/table
cd $OUT && tar czf x.tgz r && rm -rf r
