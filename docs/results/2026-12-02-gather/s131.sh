#!/bin/bash
# s131 (from the repository root; p130 = 0a48036, p132 = 0a48036 with 1- and 2-byte elements from shifted src rows
# staged as stage_scattered stages wider ones: each aligned 16-byte vector around a staged row's columns loaded once,
# its elements stored at their tile columns, where a chunk loaded the two vectors around it and shifted them): the GPU
# tests Permute.* and the aligned_stores/auto sweeps at p132, compute-sanitizer memcheck on the aligned_stores edge
# shapes; then 30 fp16 and 30 u8 draws of seed 3730304963's 60000 that permute_aligned_stores takes with shifted src
# rows (s131-shifted.txt), each build's choice, two rounds.
cd "$(dirname "$0")/../../.." ; for b in p130 p132; do tar xJf .lab/$b.txz -C .lab; done
R=$OUT/r; mkdir -p $R
export LD_LIBRARY_PATH=/usr/local/cuda/lib64
timeout 200 .lab/p132/xpose_gpu_tests --gtest_filter='Permute.*:*aligned_stores*:*auto_1B:*auto_2B' > $R/tests.txt 2>&1; echo "tests rc $?"; tail -3 $R/tests.txt
grep -E '^\[  FAILED' $R/tests.txt | head
timeout 120 compute-sanitizer --tool memcheck --error-exitcode 9 .lab/p132/xpose_gpu_tests --gtest_filter="Permute.AlignedStores*" > $R/sanitizer-memcheck.txt 2>&1; echo "memcheck rc $?: $(grep -E 'SUMMARY|PASSED|FAILED' $R/sanitizer-memcheck.txt | tr '\n' ' ')"
OUT=$R timeout 300 tools/ab-permute .lab/p130/xpose-permute-bench .lab/p132/xpose-permute-bench docs/results/2026-12-02-gather/s131-shifted.txt > $R/ab.txt 2>&1; echo "ab rc $?"; head -12 $R/ab.txt; tail -8 $R/ab.txt
cd $OUT && tar czf x.tgz r && rm -rf r
