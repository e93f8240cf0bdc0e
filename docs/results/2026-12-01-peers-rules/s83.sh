#!/bin/bash
# s83: rule half_tiles A/B: old 63e2139 (p81) vs new 469c743 (p83), 2-D seeds x2 + N-D seed, peers on new, GPU tests on new
cd "$(dirname "$0")/.." ; tar xJf .lab/p81.txz -C .lab; tar xJf .lab/p83.txz -C .lab
export LD_LIBRARY_PATH=/usr/local/cuda/lib64
O=$PWD/.lab/p81; N=$PWD/.lab/p83; R=$OUT/r; mkdir -p $R
nvidia-smi --query-gpu=name,driver_version --format=csv > $R/table
for i in 1 2; do S=$(od -An -N4 -tu4 /dev/urandom | tr -d ' ')
  for b in o n; do B=$O; [ $b = n ] && B=$N
    LD_LIBRARY_PATH=/usr/local/cuda/lib64:$B timeout 150 $B/xpose-bench --random 500 --seed $S --kernel auto --no-peers --reps 10 --no-progress --json $R/2d-$b-$S.jsonl > $R/2d-$b-$S.txt 2>&1
  done
  echo "== 2-D seed $S" >> $R/table; python3 bench/table.py ab $R/2d-o-$S.jsonl $R/2d-n-$S.jsonl > $R/ab-2d-$S.txt 2>&1; head -4 $R/ab-2d-$S.txt >> $R/table
  grep -E "cute_vectorized|vec_swizzled" $R/ab-2d-$S.txt | head -8 >> $R/table
done
S=$(od -An -N4 -tu4 /dev/urandom | tr -d ' ')
for b in o n; do B=$O; [ $b = n ] && B=$N
  LD_LIBRARY_PATH=/usr/local/cuda/lib64:$B timeout 100 $B/xpose-permute-bench --random 500 --seed $S --reps 10 --no-host-time --json $R/nd-$b-$S.jsonl > $R/nd-$b-$S.txt 2>&1
done
echo "== N-D seed $S" >> $R/table; python3 bench/table.py ab $R/nd-o-$S.jsonl $R/nd-n-$S.jsonl > $R/ab-nd-$S.txt 2>&1; head -4 $R/ab-nd-$S.txt >> $R/table
S=$(od -An -N4 -tu4 /dev/urandom | tr -d ' ')
LD_LIBRARY_PATH=/usr/local/cuda/lib64:$N timeout 150 $N/xpose-bench --random 500 --seed $S --kernel auto --reps 10 --no-progress --json $R/2d-peers-$S.jsonl > $R/2d-peers-$S.txt 2>&1
echo "== peers 2-D seed $S, 64 MiB or more" >> $R/table; python3 bench/table.py behind $R/2d-peers-$S.jsonl --min-mib 64 > $R/behind-2d-$S.txt 2>&1; head -12 $R/behind-2d-$S.txt >> $R/table
grep -m1 "random:" $R/2d-peers-$S.txt >> $R/table
LD_LIBRARY_PATH=/usr/local/cuda/lib64:$N timeout 300 $N/xpose_gpu_tests --gtest_brief=1 > $R/tests.log 2>&1; echo "tests rc $? $(tail -3 $R/tests.log | tr '\n' ' ')" >> $R/table
cat $R/table
cd $OUT && tar czf x.tgz r && rm -rf r
