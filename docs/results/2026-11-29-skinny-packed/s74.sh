#!/bin/bash
# permute_packed: old (953622d) vs brk (uniform break, dup slots) vs sw (jump into slots, 32-bit dst offsets)
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
tar xJf .lab/pe.txz -C .lab; mkdir -p $OUT/r; P=.lab/pe; T=$OUT/r/table
timeout 150 $P/sw_tests --gtest_brief=1 --gtest_filter='Permute*' > $OUT/r/tests.log 2>&1; echo "sw tests rc $? $(grep -E '^\[  (PASSED|FAILED|SKIPPED)' $OUT/r/tests.log | tr '\n' ' ')" >> $T
grep -E 'Failure|FAILED' $OUT/r/tests.log | head -5 >> $T
for t in memcheck racecheck; do for c in "u8 85,89,17,260 0,1,3,2" "u8 2,8,45,14,117 2,1,4,3,0" "fp32 3,5,7,11,13 4,2,0,3,1"; do set -- $c
timeout 60 compute-sanitizer --tool $t --error-exitcode 9 $P/sw --dtype $1 --extents $2 --perm $3 --kernel permute_packed --reps 1 --warmup 0 --no-host-time --check > $OUT/r/san-$t-$1-$2.txt 2>&1; echo "$t $c rc $?" >> $T; done; done
i=0; for c in "u8 85,89,17,260 0,1,3,2" "u8 103,1161,39,19,5 3,1,2,4,0" "u8 2,8,745,140,117 2,1,4,3,0" "fp16 5,2861,3,1364,2 3,4,1,0,2" "u8 10,2912,748 1,2,0"; do set -- $c; i=$((i+1)); r=""
for b in old brk sw; do timeout 60 $P/$b --dtype $1 --extents $2 --perm $3 --kernel permute_packed --reps 20 --no-host-time --check > $OUT/r/p$i-$b.txt 2>&1; r="$r $b $(grep -E 'permute_packed' $OUT/r/p$i-$b.txt | grep -oE '[0-9.]+%' | head -1)"; done; echo "$c:$r" >> $T; done
S=$(od -An -N4 -tu4 /dev/urandom | tr -d ' ')
for b in old brk sw; do timeout 100 $P/$b --random 500 --seed $S --kernel permute_packed --reps 10 --no-host-time --json $OUT/r/pk-$b-$S.jsonl > $OUT/r/pk-$b-$S.txt 2>&1; echo "packed $b seed $S rc $? $(grep -E 'median' $OUT/r/pk-$b-$S.txt | tail -1)" >> $T; done
S=$(od -An -N4 -tu4 /dev/urandom | tr -d ' ')
for b in old sw; do timeout 60 $P/$b --random 500 --seed $S --reps 10 --no-host-time --json $OUT/r/nd-$b-$S.jsonl > $OUT/r/nd-$b-$S.txt 2>&1; echo "N-D $b seed $S rc $? $(grep -E 'median' $OUT/r/nd-$b-$S.txt | tail -1)" >> $T; done
cat $T
cd $OUT && tar czf x.tgz r && rm -rf r
