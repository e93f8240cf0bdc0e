#!/bin/bash
# profile: permute_aligned_stores and permute_packed losers of seed 3578933367, plans, every kernel, ncu
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
tar xJf .lab/pbx.txz -C .lab; mkdir -p $OUT/r; P=.lab/pbx
i=0
for c in "fp16 422,565,833 2,1,0" "fp32 2771,46,749 2,1,0" "u8 1436,40,3998 2,1,0" "fp32 9,3031,3092 2,1,0" "u8 84,161,81,39,6 0,4,2,3,1" "fp16 9,39,3451,39 3,2,1,0" "fp32 33,1658,2,204,6 4,1,3,0,2" "fp16 2130,65,217,2,2 0,4,3,2,1" "u8 3535,1000,32 2,0,1" "u8 16,2,181,5,51,281 3,5,0,2,1,4" "fp16 930,3049,39 0,2,1" "fp16 789,22,824,15 2,0,3,1"; do
  set -- $c; i=$((i+1))
  timeout 60 $P/new --dtype $1 --extents $2 --perm $3 --reps 10 --no-host-time --explain > $OUT/r/k$i.txt 2>&1
  echo "== $i $c" >> $OUT/r/table
  grep -E "plan:|^  [a-z_]+ " $OUT/r/k$i.txt | grep -v cudaMemcpy | awk '/plan:/{print substr($0,1,230); next}{printf "   %-24s %6s\n",$1,$5}' >> $OUT/r/table
  timeout 60 ncu --clock-control none --kernel-name regex:'permute_|aligned_stores' --launch-count 1 --section SpeedOfLight --section MemoryWorkloadAnalysis --section WarpStateStats --section LaunchStats --section Occupancy --section SchedulerStats --section MemoryWorkloadAnalysis_Tables $P/new --dtype $1 --extents $2 --perm $3 --kernel auto --reps 1 --warmup 0 --no-host-time > $OUT/r/ncu$i.txt 2>&1
  echo "   ncu: $(grep -E 'Duration|DRAM Throughput|Registers Per|Achieved Occupancy|L1/TEX Hit|L2 Hit|Mem Busy|Max Bandwidth|Issued Warp|No Eligible|Block Size|Grid Size' $OUT/r/ncu$i.txt | awk '{printf "%s=%s ", $1$2, $NF}')" >> $OUT/r/table
done
cat $OUT/r/table
cd $OUT && tar czf x.tgz r && rm -rf r
