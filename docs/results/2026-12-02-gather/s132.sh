#!/bin/bash
# s132 (from the repository root; p130 = 0a48036): Nsight Compute --set full on one launch each of three fp16/fp32
# draws permute_packed takes at 26-45% of a copy (s128's), its details and its per-instruction source page (SASS,
# stall samples), to see what holds 2- and 4-byte elements there (bytes: issue, s120).
cd "$(dirname "$0")/../../.." ; tar xJf .lab/p130.txz -C .lab
P=$PWD/.lab/p130; R=$OUT/r; mkdir -p $R
export LD_LIBRARY_PATH=/usr/local/cuda/lib64
cases="fp16:23,8,3653,32:0,1,3,2 fp32:649,44,1487,3:2,0,1,3 fp16:119,410,473,6:3,1,2,0"
i=0; for c in $cases; do IFS=: read dt ex pm <<< "$c"; i=$((i+1))
  timeout 30 $P/xpose-permute-bench --dtype $dt --extents $ex --perm $pm --kernel auto --reps 20 --no-host-time --explain >> $R/t.txt 2>&1
  timeout 150 ncu --clock-control none --kernel-name regex:permute_packed --launch-count 1 --set full --import-source no -o $R/rep-$i \
    $P/xpose-permute-bench --dtype $dt --extents $ex --perm $pm --kernel auto --reps 1 --warmup 0 --no-host-time > $R/ncu-run-$i.txt 2>&1
  ncu -i $R/rep-$i.ncu-rep --page details > $R/ncu-$i.txt 2>&1
  ncu -i $R/rep-$i.ncu-rep --page source --csv --print-source sass > $R/sass-$i.csv 2>&1
  ncu -i $R/rep-$i.ncu-rep --page raw --csv > $R/raw-$i.csv 2>&1
  echo "$i $dt $ex ($pm): $(grep -E '^ +(Duration|DRAM Throughput|L2 Cache Throughput|Issue Slots Busy|Executed Instructions|Achieved Occupancy|Registers Per Thread|Eligible Warps Per Scheduler) ' $R/ncu-$i.txt | awk '{printf "%s=%s ", $1, $NF}')" >> $R/ncu-table
done
grep -E 'auto ' $R/t.txt | cut -c1-100
cat $R/ncu-table
rm -f $R/rep-*.ncu-rep
cd $OUT && tar czf x.tgz r && rm -rf r
