#!/bin/bash
# s169 (from the repository root; issue 34): p27 (the commit after 2bdc269: store_four_runs's index math in 32 bits
# from one address and a pitch) against p26 (9ca9154): the Quantize GPU tests, memcheck and racecheck on --check
# of 261x389, --check of odd shapes, times where rows are off 16 bytes, the random report on seed 1764036199
# (p26: 60.6%) and a fresh seed.
cd "$(dirname "$0")/../../.." ; tar xJf .lab/q.txz -C .lab
R=$OUT/r; mkdir -p $R
export LD_LIBRARY_PATH=/usr/local/cuda/lib64
q=.lab/p27/xpose-quantize-bench
timeout 120 .lab/p27/xpose_gpu_tests --gtest_filter='Quantize.*' > $R/gtest.txt 2>&1; echo "gtest rc $?: $(grep -E '^\[  (PASSED|FAILED) ' $R/gtest.txt | tr '\n' ' ')"
for s in 3001x4099 8192x8191 739x34851; do timeout 40 $q --check --shape $s --reps 1 --input fp32,bf16,fp16 > $R/check-$s.txt 2>&1; echo "check $s rc $?: $(grep -c passed $R/check-$s.txt) passed, $(grep -c FAILED $R/check-$s.txt) failed"; done
for tool in memcheck racecheck; do
  timeout 60 compute-sanitizer --tool $tool --error-exitcode 9 $q --check --shape 261x389 --reps 1 --warmup 0 --input fp32,bf16,fp16 > $R/$tool.txt 2>&1
  echo "$tool rc $?: $(grep -c passed $R/$tool.txt) passed, $(grep -c FAILED $R/$tool.txt) failed; $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' $R/$tool.txt | head -1)"
done
for v in p26 p27; do
  for s in 8192x8191 8191x8192; do timeout 40 .lab/$v/xpose-quantize-bench --shape $s --input bf16,fp32 --recipe delayed,mxfp8 --reps 10 >> $R/times-$v.txt 2>&1; done
done
paste <(grep -E '^  (bf16|fp32) ' $R/times-p26.txt | awk '{print $1, $2, $3, $4, $7}') <(grep -E '^  (bf16|fp32) ' $R/times-p27.txt | awk '{print $7}')
timeout 100 $q --random 200 --seed 1764036199 --reps 10 --json $R/p27-1764036199.jsonl > $R/p27-1764036199.txt 2>&1; echo "p27 1764036199 rc $?: $(grep '^==' $R/p27-1764036199.txt)"
seed=$(od -An -N4 -tu4 /dev/urandom | tr -d ' ')
timeout 100 $q --random 200 --seed $seed --reps 10 --json $R/p27-$seed.jsonl > $R/p27-$seed.txt 2>&1; echo "p27 fresh rc $?: $(grep '^==' $R/p27-$seed.txt)"
cd $OUT && tar czf x.tgz r && rm -rf r
