#!/bin/bash
# the session's final commit (new) against 5a392ca (old): GPU tests, random reports
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
tar xJf .lab/pby.txz -C .lab; mkdir -p $OUT/r; P=.lab/pby; T=$OUT/r/table
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem --format=csv,noheader >> $T
timeout 300 $P/gpu_tests --gtest_brief=1 > $OUT/r/tests.log 2>&1; echo "tests rc $? $(grep -E '^\[  (PASSED|FAILED|SKIPPED)' $OUT/r/tests.log | tr '\n' ' ')" >> $T
grep -E 'Failure|FAILED' $OUT/r/tests.log | head -8 >> $T
for i in 1 2; do S=$(od -An -N4 -tu4 /dev/urandom | tr -d ' ')
for b in old new; do timeout 60 $P/$b --random 500 --seed $S --reps 10 --no-host-time --json $OUT/r/nd-$b-$S.jsonl > $OUT/r/nd-$b-$S.txt 2>&1; echo "N-D $b seed $S rc $? $(grep -E 'median' $OUT/r/nd-$b-$S.txt | tail -1)" >> $T; done; done
S=$(od -An -N4 -tu4 /dev/urandom | tr -d ' ')
for b in old2d new2d; do timeout 60 $P/$b --random 500 --seed $S --kernel auto --no-peers --reps 10 --no-progress --json $OUT/r/2d-$b-$S.jsonl > $OUT/r/2d-$b-$S.txt 2>&1; echo "2-D $b seed $S rc $? $(grep -E 'median' $OUT/r/2d-$b-$S.txt | tail -1)" >> $T; done
cat $T
cd $OUT && tar czf x.tgz r && rm -rf r
