#!/bin/bash
# every kernel on 250 random N-D draws (HEAD 2cce5fe + --explain); ncu stall reasons on packed/aligned_stores losers
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
tar xJf .lab/pbx.txz -C .lab; mkdir -p $OUT/r; P=.lab/pbx
i=0
for c in "fp32 33,1658,2,204,6 4,1,3,0,2" "fp16 2130,65,217,2,2 0,4,3,2,1" "u8 3535,1000,32 2,0,1" "fp16 422,565,833 2,1,0" "u8 84,161,81,39,6 0,4,2,3,1" "u8 16,2,181,5,51,281 3,5,0,2,1,4"; do
  set -- $c; i=$((i+1))
  timeout 90 ncu --clock-control none --kernel-name regex:'permute_|aligned_stores' --launch-count 1 --section WarpStateStats --section SourceCounters --metrics regex:'smsp__average_warps_issue_stalled_.*_per_issue_active\.ratio',smsp__inst_executed.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared.sum,l1tex__t_requests_pipe_lsu_mem_global_op_st.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum,l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum,lts__t_sectors_srcunit_tex_op_read.sum,lts__t_sectors_srcunit_tex_op_write.sum,dram__bytes_read.sum,dram__bytes_write.sum $P/new --dtype $1 --extents $2 --perm $3 --kernel auto --reps 1 --warmup 0 --no-host-time > $OUT/r/ncu$i.txt 2>&1
  echo "== $i $c ncu rc $?" >> $OUT/r/table
  grep -E 'stalled_.*ratio' $OUT/r/ncu$i.txt | awk '$NF+0 > 0.8 {sub("smsp__average_warps_issue_stalled_","",$1); sub("_per_issue_active.ratio","",$1); printf "%s=%s ", $1, $NF}' >> $OUT/r/table; echo >> $OUT/r/table
done
S=$(od -An -N4 -tu4 /dev/urandom | tr -d ' ')
timeout 400 $P/new --random 250 --seed $S --every-kernel --reps 5 --no-host-time --json $OUT/r/every-$S.jsonl > $OUT/r/every-$S.txt 2>&1
echo "every seed $S rc $? $(grep -E 'median' $OUT/r/every-$S.txt | tail -1)" >> $OUT/r/table
cat $OUT/r/table
cd $OUT && tar czf x.tgz r && rm -rf r
