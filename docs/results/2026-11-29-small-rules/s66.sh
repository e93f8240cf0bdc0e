#!/bin/bash
# validate 5a392ca (full gpu suite); A/B branch wide-shifted-bytes (wb) against main (new)
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
tar xJf .lab/pbv.txz -C .lab; mkdir -p $OUT/r; P=.lab/pbv
nvidia-smi --query-gpu=name,clocks.max.sm,clocks.max.mem --format=csv,noheader > $OUT/r/table
timeout 320 $P/gpu_tests --gtest_brief=1 > $OUT/r/tests.log 2>&1; echo "tests rc $? $(grep -E '^\[  (PASSED|FAILED|SKIPPED)' $OUT/r/tests.log | tr '\n' ' ')" >> $OUT/r/table
grep -E 'Failure|seed|FAILED' $OUT/r/tests.log | head -8 >> $OUT/r/table
for c in "u8 30011x29989" "u8 16383x8193" "u8 4097x4099" "u8 26x26752x9"; do set -- $c
  for b in new2d wb2d; do timeout 60 $P/$b --dtype $1 --shape $2 --kernel auto --reps 10 --no-peers --check > $OUT/r/b-$b-$1-$2.txt 2>&1; echo "$c $b $(grep -E '^  auto ' $OUT/r/b-$b-$1-$2.txt | awk '{print $5, $7}')" >> $OUT/r/table; done
done
S=$(od -An -N4 -tu4 /dev/urandom | tr -d ' ')
for b in new wb new wb; do timeout 70 $P/$b --random 250 --seed $S --reps 5 --no-host-time --json $OUT/r/nd-$b-$S.jsonl > $OUT/r/nd-$b-$S.txt 2>&1; echo "N-D $b seed $S rc $? $(grep -E 'median' $OUT/r/nd-$b-$S.txt | tail -1)" >> $OUT/r/table; done
S=$(od -An -N4 -tu4 /dev/urandom | tr -d ' ')
for b in new2d wb2d; do timeout 80 $P/$b --random 250 --seed $S --kernel auto --no-peers --reps 5 --json $OUT/r/2d-$b-$S.jsonl > $OUT/r/2d-$b-$S.txt 2>&1; echo "2-D $b seed $S rc $? $(grep -E 'median' $OUT/r/2d-$b-$S.txt | tail -1)" >> $OUT/r/table; done
cat $OUT/r/table
cd $OUT && tar czf x.tgz r && rm -rf r
