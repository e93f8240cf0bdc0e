#!/bin/bash
# s124 (from .lab/; p120 = 96f351f, p123 = word stores before the step bound): Nsight Compute on two held-out draws the
# words lost with lines 17-18 bytes a step apart, and one they won, each build.
cd "$(dirname "$0")/.." ; for b in p120 p123; do tar xJf .lab/$b.txz -C .lab; done
R=$OUT/r; mkdir -p $R
export LD_LIBRARY_PATH=/usr/local/cuda/lib64
M=l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared.sum,l1tex__data_pipe_lsu_wavefronts.avg.pct_of_peak_sustained_elapsed,l1tex__t_requests_pipe_lsu_mem_global_op_st.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum,lts__t_sectors_op_write.sum,lts__t_sectors_op_read.sum,dram__bytes_write.sum,dram__bytes_read.sum,smsp__average_warp_latency_issue_stalled_barrier.ratio,smsp__average_warp_latency_issue_stalled_long_scoreboard.ratio,smsp__average_warp_latency_issue_stalled_short_scoreboard.ratio,smsp__average_warp_latency_issue_stalled_mio_throttle.ratio,smsp__average_warp_latency_issue_stalled_lg_throttle.ratio,smsp__average_warp_latency_issue_stalled_wait.ratio,smsp__average_warp_latency_issue_stalled_math_pipe_throttle.ratio,smsp__average_warp_latency_issue_stalled_not_selected.ratio,smsp__average_warp_latency_issue_stalled_dispatch_stall.ratio,smsp__average_warp_latency_issue_stalled_drain.ratio,smsp__average_warp_latency_issue_stalled_membar.ratio,smsp__average_warp_latency_issue_stalled_branch_resolving.ratio,smsp__average_warp_latency_issue_stalled_no_instruction.ratio,smsp__average_warp_latency_issue_stalled_imc_miss.ratio
i=0; for c in u8:7,3567,580,17:0,1,3,2 u8:774,33,432,18:3,1,0,2 u8:12,15,6,42,1152,7:3,0,5,2,1,4; do IFS=: read dt ex pm <<< "$c"; i=$((i+1))
  for b in p120 p123; do
  timeout 120 ncu --clock-control none --kernel-name regex:permute_packed --launch-count 1 --section SpeedOfLight --section WarpStateStats --section SchedulerStats --section InstructionStats --section Occupancy --section LaunchStats --section MemoryWorkloadAnalysis_Tables --section SourceCounters \
    --metrics $M .lab/$b/xpose-permute-bench --dtype $dt --extents $ex --perm $pm --kernel auto --reps 1 --warmup 0 --no-host-time --explain > $R/ncu-$i-$b.txt 2>&1
  echo "$i $b $dt $ex ($pm): $(grep -E '^ +(Duration|DRAM Throughput|Registers Per Thread|Achieved Occupancy|Executed Instructions|One or More Eligible|Dynamic Shared Memory Per Block|Grid Size|\w+__\S+) ' $R/ncu-$i-$b.txt | awk '{printf "%s=%s ", $1, $NF}')" >> $R/ncu-table
  done
done
cat $R/ncu-table
cd $OUT && tar czf x.tgz r && rm -rf r
