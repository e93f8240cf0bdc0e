#!/bin/bash
# aligned_stores (vectors and shifted) against vec_swizzled on 2-D shapes; ncu on each
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
tar xJf .lab/pbr.txz -C .lab; mkdir -p $OUT/r; P=.lab/pbr
for c in "fp32 8192x4096" "fp32 8191x4097" "fp16 8192x8192" "fp16 8191x8193" "u8 16384x8192" "u8 16383x8193" "fp64 4096x4096" "fp64 4095x4097"; do
  set -- $c
  timeout 60 $P/new2d --dtype $1 --shape $2 --kernel aligned_stores,vec_swizzled,auto --reps 10 --no-peers > $OUT/r/b-$1-$2.txt 2>&1
  echo "== $c $(grep -E '^  (aligned_stores|vec_swizzled|auto) ' $OUT/r/b-$1-$2.txt | awk '{printf "%s %s  ", $1, $5}')" >> $OUT/r/table
  for k in aligned_stores vec_swizzled; do
    timeout 60 ncu --clock-control none --kernel-name regex:"$k" --launch-count 1 --section SpeedOfLight --section Occupancy --section LaunchStats --metrics regex:'smsp__average_warps_issue_stalled_(long_scoreboard|barrier|short_scoreboard|mio_throttle|lg_throttle|wait)_per_issue_active\.ratio',smsp__average_warp_latency_per_inst_issued.ratio,dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sectors_srcunit_tex_op_read.sum,smsp__inst_executed.sum $P/new2d --dtype $1 --shape $2 --kernel $k --reps 1 --no-peers > $OUT/r/ncu-$k-$1-$2.txt 2>&1
    echo "   $k: $(grep -E 'Duration|DRAM Throughput|Registers Per|Achieved Occupancy|stalled|latency_per|dram__bytes|lts__t_sectors|inst_executed|Grid Size|Block Size' $OUT/r/ncu-$k-$1-$2.txt | awk '{n=$1; sub("smsp__average_warps_issue_stalled_","",n); sub("_per_issue_active.ratio","",n); printf "%s=%s ", n, $NF}')" >> $OUT/r/table
  done
done
cat $OUT/r/table
cd $OUT && tar czf x.tgz r && rm -rf r
