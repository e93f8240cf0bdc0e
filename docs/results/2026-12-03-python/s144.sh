#!/bin/bash
# s144 (from the repository root; p5 = the review's commit after 5b91ddb): the Quantize GPU tests, memcheck on
# them, and --check on a padded and an unpadded shape (fp32 tensor scales and every recipe).
cd "$(dirname "$0")/../../.." ; tar xJf .lab/p5.txz -C .lab
R=$OUT/r; mkdir -p $R
export LD_LIBRARY_PATH=/usr/local/cuda/lib64
timeout 60 .lab/p5/xpose_gpu_tests --gtest_filter='Quantize.*' > $R/gtest.txt 2>&1; echo "gtest rc $?: $(grep -E '^\[  (PASSED|FAILED) ' $R/gtest.txt | tr '\n' ' ')"
timeout 120 compute-sanitizer --tool memcheck --error-exitcode 9 .lab/p5/xpose_gpu_tests --gtest_filter='Quantize.*' > $R/memcheck.txt 2>&1; echo "memcheck rc $?: $(grep -E 'ERROR SUMMARY' $R/memcheck.txt)"
for s in 1000x3000 4096x4096; do timeout 100 .lab/p5/xpose-quantize-bench --check --shape $s --reps 3 --input bf16,fp32,fp16 > $R/check-$s.txt 2>&1; echo "check $s rc $?: $(grep -c passed $R/check-$s.txt) passed"; done
cd $OUT && tar czf x.tgz r && rm -rf r
