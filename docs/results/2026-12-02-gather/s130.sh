#!/bin/bash
# s130 (from .lab/; p130 = 0a48036, p131 = 0a48036 + row-words.diff): the GPU tests Permute.* at p131,
# compute-sanitizer memcheck and racecheck on the packed shapes; Nsight Compute on one launch each of six
# fp16/u8 draws permute_aligned_stores takes (s128's, p130); then the first 40 of the 60 u8 draws of seed
# 3730304963 (of 60000) whose plans the diff moves (s130-rows.txt), each build's choice, two rounds.
cd "$(dirname "$0")/../../.." ; for b in p130 p131; do tar xJf .lab/$b.txz -C .lab; done
R=$OUT/r; mkdir -p $R
export LD_LIBRARY_PATH=/usr/local/cuda/lib64
timeout 150 .lab/p131/xpose_gpu_tests --gtest_filter='Permute.*' > $R/tests.txt 2>&1; echo "Permute.* rc $?"; tail -3 $R/tests.txt
grep -E '^\[  FAILED' $R/tests.txt | head
for tool in memcheck racecheck; do
  timeout 120 compute-sanitizer --tool $tool --error-exitcode 9 .lab/p131/xpose_gpu_tests --gtest_filter="Permute.Packed*" > $R/sanitizer-$tool.txt 2>&1; echo "$tool rc $?: $(grep -E 'SUMMARY|PASSED|FAILED' $R/sanitizer-$tool.txt | tr '\n' ' ')"
done
cases="fp16:89,1024,2113:2,1,0 fp16:1607,2479,62:2,1,0 fp16:13,1412,23,523:3,1,0,2 u8:10,1888,1958:2,1,0 u8:716,429,213:2,1,0 u8:233,6,9,1886:2,1,3,0"
M=l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared.sum,l1tex__t_requests_pipe_lsu_mem_global_op_st.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum,l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum,smsp__inst_executed.sum,smsp__issue_active.avg.pct_of_peak_sustained_active,dram__throughput.avg.pct_of_peak_sustained_elapsed,lts__t_sectors_op_write.sum,lts__t_sectors_op_read.sum,dram__bytes_read.sum,dram__bytes_write.sum
i=0; for c in $cases; do IFS=: read dt ex pm <<< "$c"; i=$((i+1))
  timeout 60 ncu --clock-control none --kernel-name regex:aligned_stores --launch-count 1 --section SpeedOfLight --section MemoryWorkloadAnalysis_Tables \
    --section WarpStateStats --section SchedulerStats --section LaunchStats --section Occupancy --metrics $M \
    .lab/p130/xpose-permute-bench --dtype $dt --extents $ex --perm $pm --kernel auto --reps 1 --warmup 0 --no-host-time --explain > $R/ncu-$i.txt 2>&1
  echo "$i $dt $ex ($pm): $(grep -E '^ +(Duration|DRAM Throughput|Registers Per Thread|Achieved Occupancy|Issue Slots Busy|Executed Instructions|l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum|l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum|l1tex__data_pipe_lsu_wavefronts_mem_shared.sum|l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum|l1tex__t_requests_pipe_lsu_mem_global_op_st.sum|l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum|lts__t_sectors_op_write.sum|lts__t_sectors_op_read.sum|dram__bytes_read.sum|dram__bytes_write.sum) ' $R/ncu-$i.txt | awk '{printf "%s=%s ", $1, $NF}')" >> $R/ncu-table
done
cat $R/ncu-table
OUT=$R timeout 300 tools/ab-permute .lab/p130/xpose-permute-bench .lab/p131/xpose-permute-bench docs/results/2026-12-02-gather/s130-rows.txt > $R/ab.txt 2>&1; echo "ab rc $?"; tail -25 $R/ab.txt
cd $OUT && tar czf x.tgz r && rm -rf r
