#!/bin/bash
# s92: rule small_planes A/B: old d75921e (p91) vs new 8dec66e (p92), N-D seeds x3; the 23 PyTorch-led draws auto on new; peers on new (1 seed); Permute GPU tests on new
cd "$(dirname "$0")/.." ; tar xJf .lab/p91.txz -C .lab; tar xJf .lab/p92.txz -C .lab
O=$PWD/.lab/p91; N=$PWD/.lab/p92; R=$OUT/r; mkdir -p $R
nvidia-smi --query-gpu=name,driver_version --format=csv > $R/table
for i in 1 2 3; do S=$(od -An -N4 -tu4 /dev/urandom | tr -d ' ')
  for b in o n; do B=$O; [ $b = n ] && B=$N
    LD_LIBRARY_PATH=/usr/local/cuda/lib64:$B timeout 100 $B/xpose-permute-bench --random 500 --seed $S --reps 10 --no-host-time --json $R/nd-$b-$S.jsonl > $R/nd-$b-$S.txt 2>&1
  done
  echo "== N-D seed $S" >> $R/table; python3 bench/table.py ab $R/nd-o-$S.jsonl $R/nd-n-$S.jsonl > $R/ab-nd-$S.txt 2>&1; head -8 $R/ab-nd-$S.txt >> $R/table
done
LD_LIBRARY_PATH=/usr/local/cuda/lib64:$N timeout 150 python3 bench/peers.py --bench $N/xpose-permute-bench --random 500 --seed $S --no-cupy --reps 10 --json $R/ndp-$S.jsonl > $R/ndp-$S.txt 2>&1
echo "== peers N-D seed $S (new)" >> $R/table; python3 bench/table.py behind $R/nd-n-$S.jsonl $R/ndp-$S.jsonl > $R/behind-nd-$S.txt 2>&1; head -14 $R/behind-nd-$S.txt >> $R/table
LD_LIBRARY_PATH=/usr/local/cuda/lib64:$N timeout 200 $N/xpose_gpu_tests --gtest_filter='Permute*:*Nd*:*Rule*' --gtest_brief=1 > $R/tests.log 2>&1; echo "tests rc $? $(tail -2 $R/tests.log | tr '\n' ' ')" >> $R/table
cat $R/table
cd $OUT && tar czf x.tgz r && rm -rf r
