#!/bin/bash
# H200 rules (small_aligned, unaligned bounds) + skinny's padded staging (new) against 5a392ca (old)
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
tar xJf .lab/pbw.txz -C .lab; mkdir -p $OUT/r; P=.lab/pbw; T=$OUT/r/table
timeout 300 $P/gpu_tests --gtest_brief=1 > $OUT/r/tests.log 2>&1; echo "tests rc $? $(grep -E '^\[  (PASSED|FAILED|SKIPPED)' $OUT/r/tests.log | tr '\n' ' ')" >> $T
grep -E 'Failure|FAILED' $OUT/r/tests.log | head -8 >> $T
for c in "c128 9685x8" "c128 8x40456" "c128 8x1160x54" "fp64 12001x8" "fp32 4960x4x45" "u8 8x1000003" "fp16 1001x2x3" "c128 29632x8x6"; do set -- $c
  timeout 60 compute-sanitizer --tool memcheck --error-exitcode 9 $P/new2d --dtype $1 --shape $2 --kernel skinny --no-peers --reps 1 --warmup 0 --check --no-progress > $OUT/r/mc-$1-$2.txt 2>&1; m=$?
  timeout 60 compute-sanitizer --tool racecheck --error-exitcode 9 $P/new2d --dtype $1 --shape $2 --kernel skinny --no-peers --reps 1 --warmup 0 --no-progress > $OUT/r/rc-$1-$2.txt 2>&1; r=$?
  for b in old2d new2d; do timeout 60 $P/$b --dtype $1 --shape $2 --kernel skinny auto --reps 20 --no-peers --check --no-progress > $OUT/r/b-$b-$1-$2.txt 2>&1; echo "$c $b memcheck $m racecheck $r $(grep -E '^  (skinny|auto) ' $OUT/r/b-$b-$1-$2.txt | awk '{print $1, $5, $7, $NF}' | tr '\n' ' ')" >> $T; done
done
for i in 1 2; do S=$(od -An -N4 -tu4 /dev/urandom | tr -d ' ')
for b in old2d new2d; do timeout 100 $P/$b --random 500 --seed $S --kernel auto --no-peers --reps 5 --no-progress --json $OUT/r/2d-$b-$S.jsonl > $OUT/r/2d-$b-$S.txt 2>&1; echo "2-D $b seed $S rc $? $(grep -E 'median' $OUT/r/2d-$b-$S.txt | tail -1)" >> $T; done; done
S=$(od -An -N4 -tu4 /dev/urandom | tr -d ' ')
for b in old new; do timeout 80 $P/$b --random 500 --seed $S --reps 5 --no-host-time --json $OUT/r/nd-$b-$S.jsonl > $OUT/r/nd-$b-$S.txt 2>&1; echo "N-D $b seed $S rc $? $(grep -E 'median' $OUT/r/nd-$b-$S.txt | tail -1)" >> $T; done
cat $T
cd $OUT && tar czf x.tgz r && rm -rf r
