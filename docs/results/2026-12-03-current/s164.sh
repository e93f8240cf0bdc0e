#!/bin/bash
# s164 (from the repository root; issue 34; a diagnosis): times of p22 (aae2d9a) against p24 (f7533bd: the edge
# bytes' loads hoisted before their stores) and p25 (the next commit: x's rows on 4 bytes by cp.async words) where
# rows are off 16 bytes, after p25's Quantize GPU tests and --check of odd shapes; then where p25's instructions go:
# Nsight Compute's source counters per SASS instruction (executed instructions, stall samples) on bf16 delayed
# rows 8192x8191 (x and data shifted), columns 8191x8192 (data_t shifted) and columns 8192x8192 (aligned);
# memcheck and racecheck on --check of 261x389 and the random report on seed 1764036199 (p25).
cd "$(dirname "$0")/../../.." ; tar xJf .lab/q.txz -C .lab
R=$OUT/r; mkdir -p $R
export LD_LIBRARY_PATH=/usr/local/cuda/lib64
timeout 150 .lab/p25/xpose_gpu_tests --gtest_filter='Quantize.*' > $R/gtest.txt 2>&1; echo "gtest rc $?: $(grep -E '^\[  (PASSED|FAILED) ' $R/gtest.txt | tr '\n' ' ')"
for s in 261x389 3001x4099 1029x16387 8192x8191; do timeout 40 .lab/p25/xpose-quantize-bench --check --shape $s --reps 1 --input fp32,bf16,fp16 > $R/check-$s.txt 2>&1; echo "check $s rc $?: $(grep -c passed $R/check-$s.txt) passed, $(grep -c FAILED $R/check-$s.txt) failed"; done
for tool in memcheck racecheck; do
  timeout 60 compute-sanitizer --tool $tool --error-exitcode 9 .lab/p25/xpose-quantize-bench --check --shape 261x389 --reps 1 --warmup 0 --input fp32,bf16,fp16 > $R/$tool.txt 2>&1
  echo "$tool rc $?: $(grep -c passed $R/$tool.txt) passed, $(grep -c FAILED $R/$tool.txt) failed; $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' $R/$tool.txt | head -1)"
done
for v in p22 p24 p25; do
  for s in 8192x8191 8191x8192 4001x3001; do timeout 40 .lab/$v/xpose-quantize-bench --shape $s --input bf16,fp32 --recipe delayed,mxfp8 --reps 10 >> $R/times-$v.txt 2>&1; done
done
paste <(grep -E '^  (bf16|fp32) ' $R/times-p22.txt | awk '{print $1, $2, $3, $4, $7}') <(grep -E '^  (bf16|fp32) ' $R/times-p24.txt | awk '{print $7}') <(grep -E '^  (bf16|fp32) ' $R/times-p25.txt | awk '{print $7}')
for c in "8192x8191 rows" "8191x8192 columns" "8192x8192 columns"; do
  set -- $c
  timeout 60 ncu --clock-control none -k regex:quantize_staged -c 1 --section SourceCounters --section WarpStateStats \
    --section InstructionStats -o $R/src-$1-$2 .lab/p25/xpose-quantize-bench --shape $1 --input bf16 --recipe delayed \
    --outputs $2 --reps 1 --warmup 0 > $R/ncu-$1-$2.log 2>&1
  ncu --import $R/src-$1-$2.ncu-rep --page source --print-source sass --csv > $R/sass-$1-$2.csv 2> $R/sass-$1-$2.err
  ncu --import $R/src-$1-$2.ncu-rep --page details > $R/details-$1-$2.txt 2>&1
  echo "$1 $2: $(wc -l < $R/sass-$1-$2.csv) sass lines; $(grep -E 'Executed Instructions  ' $R/details-$1-$2.txt | head -1)"
done
timeout 100 .lab/p25/xpose-quantize-bench --random 200 --seed 1764036199 --reps 10 --json $R/p25-1764036199.jsonl > $R/p25-1764036199.txt 2>&1; echo "p25 1764036199 rc $?: $(grep '^==' $R/p25-1764036199.txt)"
cd $OUT && tar czf x.tgz r && rm -rf r
