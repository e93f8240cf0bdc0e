#!/bin/bash
# s139 (from the repository root; q4 = 6eef292): compute-sanitizer racecheck on Quantize.GpuMatchesTheReferenceBitForBit
# (s138's racecheck of both Quantize GPU tests ran past its 200 s).
cd "$(dirname "$0")/../../.." ; tar xJf .lab/q4.txz -C .lab
R=$OUT/r; mkdir -p $R
export LD_LIBRARY_PATH=/usr/local/cuda/lib64
timeout 230 compute-sanitizer --tool racecheck --error-exitcode 9 .lab/q4/xpose_gpu_tests --gtest_filter='Quantize.GpuMatchesTheReferenceBitForBit' > $R/racecheck.txt 2>&1; echo "racecheck rc $?: $(grep -E 'RACECHECK SUMMARY|ERROR SUMMARY|PASSED|FAILED' $R/racecheck.txt | tr '\n' ' ')"
tail -c 1500 $R/racecheck.txt
cd $OUT && tar czf x.tgz r && rm -rf r
