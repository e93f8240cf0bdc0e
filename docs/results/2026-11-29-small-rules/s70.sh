#!/bin/bash
# the session's end (2906cd9, new) against 5a392ca (old) and 56414b7 (mid): GPU tests, sanitizers on skinny, random reports
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
tar xJf .lab/pbx.txz -C .lab; mkdir -p $OUT/r; P=.lab/pbx; T=$OUT/r/table
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem --format=csv,noheader >> $T
timeout 320 $P/gpu_tests --gtest_brief=1 > $OUT/r/tests.log 2>&1; echo "tests rc $? $(grep -E '^\[  (PASSED|FAILED|SKIPPED)' $OUT/r/tests.log | tr '\n' ' ')" >> $T
grep -E 'Failure|FAILED' $OUT/r/tests.log | head -8 >> $T
for c in "c128 8x40456" "c128 9685x8" "fp16 1001x2x3"; do set -- $c
  timeout 60 compute-sanitizer --tool memcheck --error-exitcode 9 $P/new2d --dtype $1 --shape $2 --kernel skinny --no-peers --reps 1 --warmup 0 --check --no-progress > $OUT/r/mc-$1-$2.txt 2>&1; m=$?
  timeout 60 compute-sanitizer --tool racecheck --error-exitcode 9 $P/new2d --dtype $1 --shape $2 --kernel skinny --no-peers --reps 1 --warmup 0 --no-progress > $OUT/r/rc-$1-$2.txt 2>&1; echo "$c skinny memcheck $m racecheck $?" >> $T
done
for i in 1 2; do S=$(od -An -N4 -tu4 /dev/urandom | tr -d ' ')
for b in old2d mid2d new2d; do timeout 100 $P/$b --random 500 --seed $S --kernel auto --no-peers --reps 10 --no-progress --json $OUT/r/2d-$b-$S.jsonl > $OUT/r/2d-$b-$S.txt 2>&1; echo "2-D $b seed $S rc $? $(grep -E 'median' $OUT/r/2d-$b-$S.txt | tail -1)" >> $T; done; done
for i in 1 2; do S=$(od -An -N4 -tu4 /dev/urandom | tr -d ' ')
for b in old new; do timeout 100 $P/$b --random 500 --seed $S --reps 10 --no-host-time --json $OUT/r/nd-$b-$S.jsonl > $OUT/r/nd-$b-$S.txt 2>&1; echo "N-D $b seed $S rc $? $(grep -E 'median' $OUT/r/nd-$b-$S.txt | tail -1)" >> $T; done; done
cat $T
cd $OUT && tar czf x.tgz r && rm -rf r
