#!/bin/bash
# s171 (from the repository root; issues 34 and 35): p28 = 177aebc. The Quantize and Inplace GPU tests at HEAD;
# s170's per-instruction profile of quantize_staged (bf16 delayed rows 8192x8191, columns 8191x8192, 8192x8192);
# and where odd in-place squares' time goes: L2 write sectors and requests, DRAM and L2 busy, instructions of the
# tile-pair kernels on u8 8193^2 / 8192^2, fp16 8191^2, fp32 8191^2 / 8192^2 (do partial sector writes hold
# them, as they held quantize_staged?). Build: scripts/build, binaries stripped into .lab/p28/, q.txz.
cd "$(dirname "$0")/../../.." ; tar xJf .lab/q.txz -C .lab
R=$OUT/r; mkdir -p $R
export LD_LIBRARY_PATH=/usr/local/cuda/lib64
P=.lab/p28
timeout 200 $P/xpose_gpu_tests --gtest_filter='Quantize.*:Inplace.*' > $R/gtest.txt 2>&1; echo "gtest rc $?: $(grep -E '^\[  (PASSED|FAILED) ' $R/gtest.txt | tr '\n' ' ')"
for c in "8192x8191 rows" "8191x8192 columns" "8192x8192 columns"; do
  set -- $c
  timeout 60 ncu --clock-control none -k regex:quantize_staged -c 1 --section SourceCounters --section WarpStateStats \
    --section InstructionStats --section SpeedOfLight -o $R/src-$1-$2 $P/xpose-quantize-bench --shape $1 \
    --input bf16 --recipe delayed --outputs $2 --reps 1 --warmup 0 > $R/ncu-$1-$2.log 2>&1
  ncu --import $R/src-$1-$2.ncu-rep --page source --print-source sass --csv > $R/sass-$1-$2.csv 2> $R/sass-$1-$2.err
  ncu --import $R/src-$1-$2.ncu-rep --page details > $R/details-$1-$2.txt 2>&1
  rm -f $R/src-$1-$2.ncu-rep
  echo "$1 $2: $(grep -E 'Duration|Executed Instructions  |L2 Cache Throughput|DRAM Throughput' $R/details-$1-$2.txt | awk '{print $1, $NF}' | tr '\n' ' ')"
done
M=gpu__time_duration.sum,smsp__inst_executed.sum,lts__t_sectors_op_write.sum,lts__t_requests_op_write.sum,lts__t_sectors_op_read.sum,dram__bytes_read.sum,dram__bytes_write.sum,lts__throughput.avg.pct_of_peak_sustained_elapsed,dram__throughput.avg.pct_of_peak_sustained_elapsed,sm__warps_active.avg.pct_of_peak_sustained_active,launch__registers_per_thread
for c in "u8 8193x8193" "u8 8192x8192" "fp16 8191x8191" "fp16 8192x8192" "fp32 8191x8191" "fp32 8192x8192"; do
  set -- $c
  timeout 60 ncu --clock-control none -k regex:inplace_swap -c 1 --metrics $M $P/xpose-bench --inplace --dtype $1 \
    --shape $2 --reps 1 > $R/ip-$1-$2.txt 2>&1
  echo "$1 $2: $(grep -E 'inplace_swap|duration|inst_executed|sectors_op_write|requests_op_write|sectors_op_read|dram__bytes|pct_of_peak|registers' $R/ip-$1-$2.txt | awk '{print $1, $NF}' | sed 's/(.*//' | tr '\n' ' ')"
done
for s in 8193x8193 16383x16383 16384x16384; do timeout 60 $P/xpose-bench --inplace --dtype u8,fp16 --shape $s --reps 10 --check >> $R/times.txt 2>&1; done
timeout 60 $P/xpose-bench --inplace --dtype fp32 --shape 8191x8191 --reps 10 --check >> $R/times.txt 2>&1
grep -E 'inplace|square' $R/times.txt | tail -12
cd $OUT && tar czf x.tgz r && rm -rf r
