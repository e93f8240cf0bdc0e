#!/bin/bash
# s173 (from the repository root; issue 35): p30 (the shifted square tiles' turned rows stored by 32-byte sectors,
# store_four_runs) against p29 (xpose-bench with the old word stores): Inplace GPU tests at p30, memcheck on
# --check of small odd squares and blocks, odd squares and shared-factor blocks off 16 bytes timed (A/B, one call),
# and the L2 counters of the tile-pair kernels on u8 8193^2 and fp16 8191^2 at p30.
cd "$(dirname "$0")/../../.." ; tar xJf .lab/q.txz -C .lab
R=$OUT/r; mkdir -p $R
export LD_LIBRARY_PATH=/usr/local/cuda/lib64
timeout 200 .lab/p30/xpose_gpu_tests --gtest_filter='Inplace.*' > $R/gtest.txt 2>&1; echo "gtest rc $?: $(grep -E '^\[  (PASSED|FAILED) ' $R/gtest.txt | tr '\n' ' ')"
for s in 1001x1001 333x333x3 129x129 4097x4097 300x900; do
  timeout 120 compute-sanitizer --tool memcheck --error-exitcode 9 .lab/p30/xpose-bench --inplace --dtype u8,fp16 --shape $s --reps 1 --check --no-peers > $R/memcheck-$s.txt 2>&1
  echo "memcheck $s rc $?: $(grep -c passed $R/memcheck-$s.txt) passed, $(grep -c FAILED $R/memcheck-$s.txt) failed; $(grep 'ERROR SUMMARY' $R/memcheck-$s.txt | head -1)"
done
for round in 1 2; do for v in p29 p30; do
  for s in 8193x8193 8191x8191 12059x12059 16383x16383 16001x16001 8193x16386; do
    timeout 60 .lab/$v/xpose-bench --inplace --dtype u8,fp16 --shape $s --reps 10 --check --no-peers >> $R/times-$v-$round.txt 2>&1
  done
done; done
for v in p29 p30; do grep -E '^xpose-bench|^  inplace' $R/times-$v-1.txt | awk '/^xpose-bench/{c=$5" "$6} /inplace/{print c, $7, $NF}' | tr -d ',' > $R/t-$v-1.txt; grep -E '^  inplace' $R/times-$v-2.txt | awk '{print $7}' > $R/t-$v-2.txt; done
paste $R/t-p29-1.txt $R/t-p29-2.txt $R/t-p30-1.txt $R/t-p30-2.txt
M=gpu__time_duration.sum,smsp__inst_executed.sum,lts__t_sectors_op_write.sum,lts__t_requests_op_write.sum,lts__throughput.avg.pct_of_peak_sustained_elapsed,dram__throughput.avg.pct_of_peak_sustained_elapsed,sm__warps_active.avg.pct_of_peak_sustained_active
for c in "u8 8193x8193" "fp16 8191x8191"; do
  set -- $c
  timeout 60 ncu --clock-control none -k regex:inplace_swap -c 1 --metrics $M .lab/p30/xpose-bench --inplace --dtype $1 --shape $2 --reps 1 > $R/ip-$1-$2.txt 2>&1
  echo "$1 $2: $(grep -E 'duration|inst_executed|sectors_op_write|requests_op_write|pct_of_peak' $R/ip-$1-$2.txt | awk '{print $1, $NF}' | tr '\n' ' ')"
done
cd $OUT && tar czf x.tgz r && rm -rf r
