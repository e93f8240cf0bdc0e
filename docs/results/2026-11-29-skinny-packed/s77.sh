#!/bin/bash
# 40f8adf (new: short_runs_16, small_aligned bounds) against ce1cdfa (old): GPU tests, held-out random reports, placement
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
tar xJf .lab/ph.txz -C .lab; mkdir -p $OUT/r; P=.lab/ph; T=$OUT/r/table
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem --format=csv,noheader >> $T
timeout 280 $P/gpu_tests --gtest_brief=1 > $OUT/r/tests.log 2>&1; echo "tests rc $? $(grep -E '^\[  (PASSED|FAILED|SKIPPED)' $OUT/r/tests.log | tr '\n' ' ')" >> $T
grep -E 'Failure|FAILED' $OUT/r/tests.log | head -8 >> $T
for c in "1313,428,4,9 1,3,0,2" "43,296,2,9,14 2,0,1,4,3" "6,1041,6,17,13 2,4,1,3,0"; do set -- $c; r=""
for b in old new; do timeout 30 $P/$b --dtype c128 --extents $1 --perm $2 --kernel auto --reps 10 --no-host-time --check > $OUT/r/c-$b-$1.txt 2>&1; r="$r $b $(grep -E '^ *auto' $OUT/r/c-$b-$1.txt | grep -oE '[0-9.]+%|\(permute[a-z_]*\)|passed|FAILED' | tr '\n' ' ')"; done; echo "c128 $c:$r" >> $T; done
for sh in 2048x3072:1 2048x3072:2 1472x3264:2 3712x768:1; do s=${sh%%:*}; e=${sh##*:}; r=""
for b in old2d new2d; do timeout 30 $P/$b --dtype $e --shape $s --kernel auto --no-peers --reps 20 --check > $OUT/r/s-$b-$s-$e.txt 2>&1; r="$r $b $(awk '$1=="auto"{print $6, $NF; exit}' $OUT/r/s-$b-$s-$e.txt)"; done; echo "$e-byte $s:$r" >> $T; done
for i in 1 2; do S=$(od -An -N4 -tu4 /dev/urandom | tr -d ' ')
for b in old new; do timeout 60 $P/$b --random 500 --seed $S --reps 10 --no-host-time --json $OUT/r/nd-$b-$S.jsonl > $OUT/r/nd-$b-$S.txt 2>&1; echo "N-D $b seed $S rc $? $(grep -E 'median' $OUT/r/nd-$b-$S.txt | tail -1)" >> $T; done
S=$(od -An -N4 -tu4 /dev/urandom | tr -d ' ')
for b in old2d new2d; do timeout 60 $P/$b --random 500 --seed $S --kernel auto --no-peers --reps 10 --no-progress --json $OUT/r/2d-$b-$S.jsonl > $OUT/r/2d-$b-$S.txt 2>&1; echo "2-D $b seed $S rc $? $(grep -E 'median' $OUT/r/2d-$b-$S.txt | tail -1)" >> $T; done; done
S=$(od -An -N4 -tu4 /dev/urandom | tr -d ' ')
for pl in exact inside offset exact; do timeout 60 $P/new2d --random 500 --seed $S --kernel auto --no-peers --reps 10 --no-progress --placement $pl --json $OUT/r/pl-$pl-$S.jsonl > /dev/null 2>&1; echo "placement $pl seed $S rc $?" >> $T; mv $OUT/r/pl-$pl-$S.jsonl $OUT/r/pl-$pl-$S-$(date +%s%N).jsonl; done
cat $T
cd $OUT && tar czf x.tgz r && rm -rf r
