#!/bin/bash
# s172 (from the repository root; issue 34): p29 (store_four_runs with whole-tile runs' length at compile time,
# data_t's edge-byte addresses in unsigned math) against p28 (177aebc): the Quantize GPU tests, memcheck on --check
# of 261x389, --check of odd shapes, times where rows are off 16 bytes, the random report on seed 600886590 (p27:
# 67.9%) for both.
cd "$(dirname "$0")/../../.." ; tar xJf .lab/q.txz -C .lab
R=$OUT/r; mkdir -p $R
export LD_LIBRARY_PATH=/usr/local/cuda/lib64
q=.lab/p29/xpose-quantize-bench
timeout 120 .lab/p29/xpose_gpu_tests --gtest_filter='Quantize.*' > $R/gtest.txt 2>&1; echo "gtest rc $?: $(grep -E '^\[  (PASSED|FAILED) ' $R/gtest.txt | tr '\n' ' ')"
for s in 3001x4099 8192x8191 739x34851; do timeout 40 $q --check --shape $s --reps 1 --input fp32,bf16,fp16 > $R/check-$s.txt 2>&1; echo "check $s rc $?: $(grep -c passed $R/check-$s.txt) passed, $(grep -c FAILED $R/check-$s.txt) failed"; done
timeout 60 compute-sanitizer --tool memcheck --error-exitcode 9 $q --check --shape 261x389 --reps 1 --warmup 0 --input fp32,bf16,fp16 > $R/memcheck.txt 2>&1
echo "memcheck rc $?: $(grep -c passed $R/memcheck.txt) passed, $(grep -c FAILED $R/memcheck.txt) failed; $(grep -E 'ERROR SUMMARY' $R/memcheck.txt | head -1)"
for v in p28 p29; do
  for s in 8192x8191 8191x8192 8191x8191; do timeout 40 .lab/$v/xpose-quantize-bench --shape $s --input bf16,fp32 --recipe delayed,mxfp8 --reps 10 >> $R/times-$v.txt 2>&1; done
done
paste <(grep -E '^  (bf16|fp32) ' $R/times-p28.txt | awk '{print $1, $2, $3, $4, $7}') <(grep -E '^  (bf16|fp32) ' $R/times-p29.txt | awk '{print $7}')
for v in p28 p29; do
  timeout 100 .lab/$v/xpose-quantize-bench --random 200 --seed 600886590 --reps 10 --json $R/$v-600886590.jsonl > $R/$v-600886590.txt 2>&1; echo "$v 600886590 rc $?: $(grep '^==' $R/$v-600886590.txt)"
done
cd $OUT && tar czf x.tgz r && rm -rf r
