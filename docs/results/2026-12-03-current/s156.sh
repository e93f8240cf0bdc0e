#!/bin/bash
# s156 (from the repository root; issue 34): quantize_staged's whole tiles off 16 bytes (1a6f799, p18) against
# a6a42c4 (p16): the Quantize GPU tests (whole tiles with every row off 16 bytes added), memcheck and racecheck on
# --check runs of odd shapes, then the random report on s154's seed 1764036199 (both builds) and a fresh seed (p18).
cd "$(dirname "$0")/../../.." ; tar xJf .lab/p18.txz -C .lab
R=$OUT/r; mkdir -p $R
export LD_LIBRARY_PATH=/usr/local/cuda/lib64
timeout 200 .lab/p18/xpose_gpu_tests --gtest_filter='Quantize.*' > $R/gtest.txt 2>&1; echo "gtest rc $?: $(grep -E '^\[  (PASSED|FAILED) ' $R/gtest.txt | tr '\n' ' ')"
q=.lab/p18/xpose-quantize-bench
for tool in memcheck racecheck; do
  timeout 100 compute-sanitizer --tool $tool --error-exitcode 9 $q --check --shape 261x389 --reps 1 --warmup 0 --input fp32,bf16,fp16 > $R/$tool.txt 2>&1
  echo "$tool rc $?: $(grep -c passed $R/$tool.txt) passed, $(grep -c FAILED $R/$tool.txt) failed; $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' $R/$tool.txt | head -1)"
done
for s in 3001x4099 4097x2049 1029x16387; do timeout 60 $q --check --shape $s --reps 2 --input fp32,bf16,fp16 > $R/check-$s.txt 2>&1; echo "check $s rc $?: $(grep -c passed $R/check-$s.txt) passed, $(grep -c FAILED $R/check-$s.txt) failed"; done
for v in p16 p18; do timeout 100 .lab/$v/xpose-quantize-bench --random 200 --seed 1764036199 --reps 10 --json $R/$v-1764036199.jsonl > $R/$v-1764036199.txt 2>&1; echo "$v rc $?: $(grep '^==' $R/$v-1764036199.txt)"; done
seed=$(od -An -N4 -tu4 /dev/urandom | tr -d ' ')
timeout 100 $q --random 200 --seed $seed --reps 10 --json $R/p18-$seed.jsonl > $R/p18-$seed.txt 2>&1; echo "p18 fresh rc $?: $(grep '^==' $R/p18-$seed.txt)"
tail -6 $R/p18-$seed.txt
cd $OUT && tar czf x.tgz r && rm -rf r
