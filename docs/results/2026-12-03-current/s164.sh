#!/bin/bash
# s164 (from the repository root; issue 34; a diagnosis): times of p22 (aae2d9a) against p24 (the next commit: the
# edge bytes' loads hoisted before their stores) where rows are off 16 bytes, after p24's Quantize GPU tests and
# --check of odd shapes; then where p24's instructions go:
# Nsight Compute's source counters per SASS instruction (executed instructions, stall samples) on bf16 delayed
# rows 8192x8191 (x and data shifted), columns 8191x8192 (data_t shifted) and columns 8192x8192 (aligned).
cd "$(dirname "$0")/../../.." ; tar xJf .lab/q.txz -C .lab
R=$OUT/r; mkdir -p $R
export LD_LIBRARY_PATH=/usr/local/cuda/lib64
timeout 150 .lab/p24/xpose_gpu_tests --gtest_filter='Quantize.*' > $R/gtest.txt 2>&1; echo "gtest rc $?: $(grep -E '^\[  (PASSED|FAILED) ' $R/gtest.txt | tr '\n' ' ')"
for s in 261x389 3001x4099 1029x16387 8192x8191; do timeout 40 .lab/p24/xpose-quantize-bench --check --shape $s --reps 1 --input fp32,bf16,fp16 > $R/check-$s.txt 2>&1; echo "check $s rc $?: $(grep -c passed $R/check-$s.txt) passed, $(grep -c FAILED $R/check-$s.txt) failed"; done
for v in p22 p24; do
  for s in 8192x8191 8191x8192; do timeout 40 .lab/$v/xpose-quantize-bench --shape $s --input bf16,fp32 --recipe delayed,mxfp8 --reps 10 >> $R/times-$v.txt 2>&1; done
done
paste <(grep -E '^  (bf16|fp32) ' $R/times-p22.txt | awk '{print $1, $2, $3, $4, $7}') <(grep -E '^  (bf16|fp32) ' $R/times-p24.txt | awk '{print $7}')
for c in "8192x8191 rows" "8191x8192 columns" "8192x8192 columns"; do
  set -- $c
  timeout 60 ncu --clock-control none -k regex:quantize_staged -c 1 --section SourceCounters --section WarpStateStats \
    --section InstructionStats -o $R/src-$1-$2 .lab/p24/xpose-quantize-bench --shape $1 --input bf16 --recipe delayed \
    --outputs $2 --reps 1 --warmup 0 > $R/ncu-$1-$2.log 2>&1
  ncu --import $R/src-$1-$2.ncu-rep --page source --print-source sass --csv > $R/sass-$1-$2.csv 2> $R/sass-$1-$2.err
  ncu --import $R/src-$1-$2.ncu-rep --page details > $R/details-$1-$2.txt 2>&1
  echo "$1 $2: $(wc -l < $R/sass-$1-$2.csv) sass lines; $(grep -E 'Executed Instructions  ' $R/details-$1-$2.txt | head -1)"
done
cd $OUT && tar czf x.tgz r && rm -rf r
