#!/bin/bash
# permute_packed: cut axes that end a run first in the tile order (dst's partly written sectors meet in L2) against HEAD
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
tar xJf .lab/pbo.txz -C .lab; mkdir -p $OUT/r; P=.lab/pbo
timeout 200 $P/gpu_tests --gtest_filter='Permute*' > $OUT/r/tests.log 2>&1; echo "tests rc $? $(grep -E '^\[  (PASSED|FAILED)' $OUT/r/tests.log | tr '\n' ' ')" > $OUT/r/table
for b in new ord; do
  timeout 90 ncu --clock-control none --kernel-name regex:'permute_' --launch-count 1 --metrics dram__bytes_read.sum,dram__bytes_write.sum,gpu__time_duration.sum $P/$b --dtype fp32 --extents 33,1658,2,204,6 --perm 4,1,3,0,2 --kernel auto --reps 1 --warmup 0 --no-host-time > $OUT/r/ncu-$b.txt 2>&1
  echo "ncu $b $(grep -E 'dram__bytes|gpu__time' $OUT/r/ncu-$b.txt | awk '{printf "%s=%s%s ", $1, $NF, $(NF-1)}')" >> $OUT/r/table
done
S=$(od -An -N4 -tu4 /dev/urandom | tr -d ' ')
for b in new ord new ord; do timeout 150 $P/$b --random 250 --seed $S --reps 5 --no-host-time --json $OUT/r/nd-$b-$S.jsonl > $OUT/r/nd-$b-$S.txt 2>&1; echo "N-D $b seed $S rc $? $(grep -E 'median' $OUT/r/nd-$b-$S.txt | tail -1)" >> $OUT/r/table; done
cat $OUT/r/table
cd $OUT && tar czf x.tgz r && rm -rf r
