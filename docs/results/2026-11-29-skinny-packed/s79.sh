#!/bin/bash
# old (40f8adf) vs fix (rules' moved bytes from NdForm::elements) vs f512 (fix + permute_packed chunk staging of 1-2 byte elements at 512 threads, 1 block/SM)
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
tar xJf .lab/pj.txz -C .lab; mkdir -p $OUT/r; P=.lab/pj; T=$OUT/r/table
timeout 100 $P/f512_tests --gtest_brief=1 --gtest_filter='Permute*' > $OUT/r/tests.log 2>&1; echo "f512 tests rc $? $(grep -E '^\[  (PASSED|FAILED)' $OUT/r/tests.log | tr '\n' ' ')" >> $T
for t in memcheck racecheck; do for c in "u8 85,89,17,260 0,1,3,2" "fp16 5,286,3,136,2 3,4,1,0,2"; do set -- $c
timeout 60 compute-sanitizer --tool $t --error-exitcode 9 $P/f512 --dtype $1 --extents $2 --perm $3 --kernel permute_packed --reps 1 --warmup 0 --no-host-time --check > $OUT/r/san-$t-$1.txt 2>&1; echo "$t $c rc $?" >> $T; done; done
i=0; for c in "u8 85,89,17,260 0,1,3,2" "fp16 5,2861,3,1364,2 3,4,1,0,2" "u8 10,2912,748 1,2,0" "fp16 783,914,2,8 1,3,2,0" "fp16 55,26,1682,8,11 3,1,2,0,4"; do set -- $c; i=$((i+1)); r=""
for b in old f512; do timeout 60 $P/$b --dtype $1 --extents $2 --perm $3 --kernel permute_packed --reps 20 --no-host-time --check > $OUT/r/p$i-$b.txt 2>&1; r="$r $b $(grep -E 'permute_packed' $OUT/r/p$i-$b.txt | grep -oE '[0-9.]+%|passed|FAILED' | head -2 | tr '\n' ' ')"; done; echo "$c:$r" >> $T; done
for i in 1 2; do S=$(od -An -N4 -tu4 /dev/urandom | tr -d ' ')
for b in old fix f512; do timeout 60 $P/$b --random 500 --seed $S --reps 10 --no-host-time --json $OUT/r/nd-$b-$S.jsonl > $OUT/r/nd-$b-$S.txt 2>&1; echo "N-D $b seed $S rc $? $(grep -E 'median' $OUT/r/nd-$b-$S.txt | tail -1)" >> $T; done; done
cat $T
cd $OUT && tar czf x.tgz r && rm -rf r
