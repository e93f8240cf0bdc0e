#!/bin/bash
# permute_packed chunk staging for 1-2 byte elements: old (16 a thread, 2 blocks/SM) vs b3 (8, 3 blocks) vs b4 (8, 4 blocks, spills)
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
tar xJf .lab/pi.txz -C .lab; mkdir -p $OUT/r; P=.lab/pi; T=$OUT/r/table
timeout 100 $P/b3_tests --gtest_brief=1 --gtest_filter='Permute*' > $OUT/r/tests.log 2>&1; echo "b3 tests rc $? $(grep -E '^\[  (PASSED|FAILED)' $OUT/r/tests.log | tr '\n' ' ')" >> $T
i=0; for c in "u8 85,89,17,260 0,1,3,2" "fp16 5,2861,3,1364,2 3,4,1,0,2" "u8 10,2912,748 1,2,0" "fp16 783,914,2,8 1,3,2,0" "fp16 55,26,1682,8,11 3,1,2,0,4"; do set -- $c; i=$((i+1)); r=""
for b in old b3 b4; do timeout 60 $P/$b --dtype $1 --extents $2 --perm $3 --kernel permute_packed --reps 20 --no-host-time --check > $OUT/r/p$i-$b.txt 2>&1; r="$r $b $(grep -E 'permute_packed' $OUT/r/p$i-$b.txt | grep -oE '[0-9.]+%|passed|FAILED' | head -2 | tr '\n' ' ')"; done; echo "$c:$r" >> $T; done
S=$(od -An -N4 -tu4 /dev/urandom | tr -d ' ')
for b in old b3 b4; do timeout 120 $P/$b --random 500 --seed $S --kernel auto permute_packed --reps 10 --no-host-time --json $OUT/r/pk-$b-$S.jsonl > $OUT/r/pk-$b-$S.txt 2>&1; echo "auto+packed $b seed $S rc $? $(grep -E 'median' $OUT/r/pk-$b-$S.txt | tail -1)" >> $T; done
cat $T
cd $OUT && tar czf x.tgz r && rm -rf r
