#!/bin/bash
# the session's final code (26236ee): the whole GPU suite
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
tar xJf .lab/pk.txz -C .lab; mkdir -p $OUT/r; P=.lab/pk; T=$OUT/r/table
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader >> $T
timeout 290 $P/gpu_tests --gtest_brief=1 > $OUT/r/tests.log 2>&1; echo "tests rc $? $(grep -E '^\[  (PASSED|FAILED|SKIPPED)' $OUT/r/tests.log | tr '\n' ' ')" >> $T
grep -E 'Failure|FAILED' $OUT/r/tests.log | head -8 >> $T
S=$(od -An -N4 -tu4 /dev/urandom | tr -d ' ')
timeout 40 $P/new --random 500 --seed $S --reps 10 --no-host-time --json $OUT/r/nd-$S.jsonl > $OUT/r/nd-$S.txt 2>&1; echo "N-D seed $S rc $? $(grep -E 'median' $OUT/r/nd-$S.txt | tail -1)" >> $T
cat $T
cd $OUT && tar czf x.tgz r && rm -rf r
