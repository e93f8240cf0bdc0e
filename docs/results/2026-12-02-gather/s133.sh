#!/bin/bash
# s133 (from the repository root; p130 = 0a48036, p133 = 0a48036 with permute_packed's chunk stages filling the
# kernel's share of an SM's shared memory (224 KiB / blocks an SM - 2 KiB, 2 to 8 stages) where 32 KiB bounded them,
# Nsight Compute (s132) having shown 2- and 4-byte draws waiting on their loads at 15-24% issue): the GPU tests
# Permute.* and the packed sweeps at p133, memcheck on Permute.Packed*, then 40 draws of each element size of seed
# 3730304963's 60000 whose plans it moves (s133-stages.txt), each build's choice, two rounds.
cd "$(dirname "$0")/../../.." ; for b in p130 p133; do tar xJf .lab/$b.txz -C .lab; done
R=$OUT/r; mkdir -p $R
export LD_LIBRARY_PATH=/usr/local/cuda/lib64
timeout 200 .lab/p133/xpose_gpu_tests --gtest_filter='Permute.*:*permute_packed*:*auto_*' > $R/tests.txt 2>&1; echo "tests rc $?"; tail -3 $R/tests.txt
grep -E '^\[  FAILED' $R/tests.txt | head
timeout 100 compute-sanitizer --tool memcheck --error-exitcode 9 .lab/p133/xpose_gpu_tests --gtest_filter="Permute.Packed*" > $R/sanitizer-memcheck.txt 2>&1; echo "memcheck rc $?: $(grep -E 'SUMMARY|PASSED|FAILED' $R/sanitizer-memcheck.txt | tr '\n' ' ')"
OUT=$R timeout 330 tools/ab-permute .lab/p130/xpose-permute-bench .lab/p133/xpose-permute-bench docs/results/2026-12-02-gather/s133-stages.txt > $R/ab.txt 2>&1; echo "ab rc $?"; head -14 $R/ab.txt; tail -8 $R/ab.txt
cd $OUT && tar czf x.tgz r && rm -rf r
