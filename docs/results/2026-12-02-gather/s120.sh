#!/bin/bash
# s120 (96f351f, .lab/p120; run from .lab/): what holds permute_packed's byte draws now: Nsight Compute on one launch each of
# u8/fp16 draws it takes (speed of light, memory tables, warp states, scheduler, instructions, L1 wavefronts and bank
# conflicts), and the SASS of permute_packed_chunks<1>
cd "$(dirname "$0")/.." ; tar xJf .lab/p120.txz -C .lab
P=$PWD/.lab/p120; R=$OUT/r; mkdir -p $R
export LD_LIBRARY_PATH=/usr/local/cuda/lib64
cases="u8:180,858,248,3:1,3,0,2 u8:828,38,3100:0,2,1 u8:3057,126,63,9:0,3,1,2 u8:15,362,828,43:2,0,1,3 u8:110,10,189,178,8:4,1,2,0,3 fp16:358,26,903:0,2,1 fp16:87,5,375,11,3,17:3,2,1,4,0,5"
for c in $cases; do IFS=: read dt ex pm <<< "$c"
  timeout 30 $P/xpose-permute-bench --dtype $dt --extents $ex --perm $pm --kernel auto --reps 20 --no-host-time --explain --json $R/t.jsonl >> $R/t.txt 2>&1
done
M=l1tex__data_pipe_lsu_wavefronts.avg.pct_of_peak_sustained_elapsed,l1tex__data_pipe_lsu_wavefronts_mem_shared.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum,l1tex__t_requests_pipe_lsu_mem_global_op_st.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum,l1tex__data_pipe_lsu_wavefronts_mem_lg.sum,smsp__inst_executed.sum,smsp__issue_active.avg.pct_of_peak_sustained_active,sm__warps_active.avg.pct_of_peak_sustained_active,dram__throughput.avg.pct_of_peak_sustained_elapsed,lts__t_sectors_op_write.sum,lts__t_sectors_op_read.sum,smsp__inst_executed_pipe_lsu.sum,l1tex__lsu_writeback_active.avg.pct_of_peak_sustained_elapsed,smsp__inst_executed_op_ldgsts.sum
i=0; for c in $cases; do IFS=: read dt ex pm <<< "$c"; i=$((i+1))
  timeout 90 ncu --clock-control none --kernel-name regex:permute_packed --launch-count 1 --section SpeedOfLight --section MemoryWorkloadAnalysis_Tables \
    --section WarpStateStats --section SchedulerStats --section InstructionStats --section LaunchStats --section Occupancy --metrics $M \
    $P/xpose-permute-bench --dtype $dt --extents $ex --perm $pm --kernel auto --reps 1 --warmup 0 --no-host-time > $R/ncu-$i.txt 2>&1
  echo "$i $dt $ex ($pm): $(grep -E '^ +(Duration|DRAM Throughput|Registers Per Thread|Achieved Occupancy|Issue Slots Busy|Executed Instructions|l1tex__data_pipe_lsu_wavefronts.avg.pct_of_peak_sustained_elapsed|l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum|l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum|l1tex__t_requests_pipe_lsu_mem_global_op_st.sum|l1tex__data_pipe_lsu_wavefronts_mem_lg.sum|smsp__inst_executed_pipe_lsu.sum|lts__t_sectors_op_write.sum|l1tex__lsu_writeback_active.avg.pct_of_peak_sustained_elapsed) ' $R/ncu-$i.txt | awk '{printf "%s=%s ", $1, $NF}')" >> $R/ncu-table
done
cuobjdump -sass $P/xpose-permute-bench 2>/dev/null | awk '/Function : .*permute_packed_chunks/{p=1} /Function : /&&!/permute_packed_chunks/{p=0} p' > $R/sass-chunks.txt
grep -c "" $R/sass-chunks.txt >> $R/ncu-table
python3 - $R > $R/table <<'P'
import json,sys
for l in open(sys.argv[1]+'/t.jsonl'):
    r=json.loads(l)
    if r['role']=='xpose': print(f"{r['case'][:44]:44s} {r['kernel']:24s} {r['pct_copy']:5.1f}")
P
cat $R/table $R/ncu-table
cd $OUT && tar czf x.tgz r && rm -rf r
