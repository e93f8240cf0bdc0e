#!/bin/bash
tar xJf .lab/pb24.txz
mkdir -p $OUT/r
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
M="regex:smsp__average_warps_issue_stalled_.*_per_issue_active.ratio,dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sectors_srcunit_tex_op_read.sum,lts__t_sectors_srcunit_tex_op_write.sum,smsp__inst_executed.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum,l1tex__t_requests_pipe_lsu_mem_global_op_st.sum,l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum,gpu__time_duration.sum,sm__warps_active.avg.pct_of_peak_sustained_active,lts__t_sectors_srcunit_tex_op_write_lookup_miss.sum,lts__average_gcomp_input_sector_success_rate.pct"
for s in 16383x16383 16384x16384; do
timeout 150 ncu --clock-control none -k regex:inplace_swap --launch-count 1 --metrics $M prebuilt/early --inplace --dtype u8 --shape $s --reps 1 --no-progress > $OUT/r/ncu-$s.txt 2>&1
done
grep -E "^\s+(smsp|dram|lts|l1tex|gpu__|sm__)" $OUT/r/ncu-16383x16383.txt | awk '{print $1, $NF}' > /tmp/a; grep -E "^\s+(smsp|dram|lts|l1tex|gpu__|sm__)" $OUT/r/ncu-16384x16384.txt | awk '{print $NF}' > /tmp/b; paste /tmp/a /tmp/b | awk '$2 != "0" || $3 != "0"'
cd $OUT && tar czf x.tgz r && rm -rf r
