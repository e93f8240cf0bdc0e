#!/bin/bash
# rows permutations (the fastest axis kept): every N-D kernel, then Nsight Compute on two
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
mkdir -p $OUT/r; B=.lab/pbh/xpose-permute-bench
for c in "u8 1091,433,1135 1,0,2" "u8 100,675,315 1,0,2" "u8 389,1522,173 1,0,2" "u8 2498,315,21,7 1,2,0,3" "u8 335,614,1911 1,0,2" "fp16 1209,514,63 1,0,2" "fp16 1264,1374,149 1,0,2" "fp16 23,53,3127,33 1,2,0,3" "fp32 825,3171,7 1,0,2" "fp32 5,3565,902,7 0,2,1,3" "u8 244,42,3630,6 0,2,1,3"; do
  set -- $c; n="$1-$2-$3"
  timeout 60 $B --dtype $1 --extents $2 --perm $3 --reps 10 --no-host-time --check > $OUT/r/$n.txt 2>&1
  echo "== $c" >> $OUT/r/table; grep -E '^  (auto|permute|copy|cudaMemcpy)' $OUT/r/$n.txt | awk '{printf "   %-24s %7s %s\n", $1, $6, $8}' >> $OUT/r/table
done
for c in "u8 1091,433,1135 1,0,2 permute_row_vectors" "u8 1091,433,1135 1,0,2 permute_packed" "fp16 1209,514,63 1,0,2 permute_row_vectors"; do
  set -- $c; n="ncu-$1-$2-$4"
  timeout 120 ncu --clock-control none --kernel-name regex:$4 --launch-count 1 --section SpeedOfLight --section MemoryWorkloadAnalysis --section WarpStateStats --section SchedulerStats --section Occupancy --section LaunchStats --section SourceCounters $B --dtype $1 --extents $2 --perm $3 --kernel $4 --reps 1 --warmup 0 --no-host-time > $OUT/r/$n.txt 2>&1
  echo "$n rc $?" >> $OUT/r/table
done
cat $OUT/r/table
cd $OUT && tar czf x.tgz r && rm -rf r
