#!/bin/bash
# s108 (49ffebd's permute_aligned_stores, as db29359's: .lab/p103; run from .lab/): where its shifted staging (src rows not
# 16-byte aligned, the random draws' common case) loses against the same shapes with aligned rows: the draws timed through it,
# then Nsight Compute on one launch of each (speed of light, memory, warp states, scheduler, instructions)
cd "$(dirname "$0")/.." ; tar xJf .lab/p103.txz -C .lab
P=$PWD/.lab/p103; R=$OUT/r; mkdir -p $R
export LD_LIBRARY_PATH=/usr/local/cuda/lib64
cases="u8:201,921,831:2,1,0 u8:192,928,832:2,1,0 u8:2266,44,2611:2,1,0 fp16:822,165,497:2,1,0 fp16:816,168,496:2,1,0 fp16:159,2,1000,244:2,1,3,0 u8:2,289,3224,2,48:4,3,1,2,0"
for c in $cases; do IFS=: read dt ex pm <<< "$c"
  timeout 30 $P/xpose-permute-bench --dtype $dt --extents $ex --perm $pm --kernel permute_aligned_stores auto --reps 20 --no-host-time --explain --json $R/t.jsonl >> $R/t.txt 2>&1
done
i=0; for c in $cases; do IFS=: read dt ex pm <<< "$c"; i=$((i+1))
  timeout 60 ncu --clock-control none --kernel-name regex:permute_aligned_stores --launch-count 1 --section SpeedOfLight --section MemoryWorkloadAnalysis \
    --section WarpStateStats --section SchedulerStats --section InstructionStats --section LaunchStats --section Occupancy \
    $P/xpose-permute-bench --dtype $dt --extents $ex --perm $pm --kernel permute_aligned_stores --reps 1 --warmup 0 --no-host-time > $R/ncu-$i.txt 2>&1
  echo "$i $dt $ex ($pm): $(grep -E '^ +(Duration|DRAM Throughput|L1/TEX Hit Rate|L2 Hit Rate|Registers Per Thread|Achieved Occupancy|Executed Ipc Active|Issue Slots Busy|Block Limit Registers|Block Limit Shared Mem|Grid Size|Executed Instructions) ' $R/ncu-$i.txt | awk '{printf "%s=%s ", $1, $NF}')" >> $R/ncu-table
done
python3 - $R > $R/table <<'P'
import json,sys
for l in open(sys.argv[1]+'/t.jsonl'):
    r=json.loads(l)
    if r['role']=='xpose': print(f"{r['case'][:44]:44s} {r['kernel']:24s} {r['pct_copy']:5.1f}")
P
cat $R/table $R/ncu-table
cd $OUT && tar czf x.tgz r && rm -rf r
