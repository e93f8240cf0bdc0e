#!/bin/bash
# aligned_stores: span-bound vectors for 1-2 byte elements only (e, e2d) against all-sizes (new, new2d) and 5ab9d66 (old, old2d); ncu on the fp64 loser
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
tar xJf .lab/pbu.txz -C .lab; mkdir -p $OUT/r; P=.lab/pbu
for c in "fp64 2704x989x24 1029 2764" "fp32 731x1777x55 0 0" "u8 3019x549x60 0 0" "fp16 2280x34x1760 0 0"; do
  set -- $c; line="2-D $1 $2 ld $3/$4:"
  for b in old2d new2d e2d; do
    timeout 60 $P/$b --dtype $1 --shape $2 --ld-src $3 --ld-dst $4 --kernel auto --reps 10 --no-peers > $OUT/r/$b-$1-$2.txt 2>&1
    line="$line $b $(grep -E '^  auto ' $OUT/r/$b-$1-$2.txt | awk '{print $6, $NF}')"
  done
  echo "$line" >> $OUT/r/table
done
for c in "fp16 669,113,2,217 2,0,3,1" "fp16 5,66,13,1517,10 4,3,1,0,2" "u8 5,501,709,75 3,1,2,0" "fp32 266,362,6,3,57 2,4,3,0,1" "u8 11,1109,150,193 1,3,0,2" "fp16 142,3253,39 2,1,0"; do
  set -- $c; line="N-D $1 $2 ($3):"
  for b in old new e; do
    timeout 60 $P/$b --dtype $1 --extents $2 --perm $3 --reps 10 --no-host-time --check --kernel auto > $OUT/r/$b-$1-$2.txt 2>&1
    line="$line $b $(grep -E '^  auto ' $OUT/r/$b-$1-$2.txt | awk '{print $6, $NF}')"
  done
  echo "$line" >> $OUT/r/table
done
for b in old2d new2d; do
  timeout 100 ncu --clock-control none --kernel-name regex:transpose_aligned_stores --launch-count 1 --section SpeedOfLight --section MemoryWorkloadAnalysis --section WarpStateStats --section LaunchStats --section Occupancy $P/$b --dtype fp64 --shape 2704x989x24 --ld-src 1029 --ld-dst 2764 --kernel aligned_stores --reps 1 --no-peers > $OUT/r/ncu-$b.txt 2>&1
  echo "ncu $b rc $? $(grep -E 'Duration|DRAM Throughput|Registers Per|Achieved Occ' $OUT/r/ncu-$b.txt | awk '{print $1,$2,$NF}' | tr '\n' ' ')" >> $OUT/r/table
done
cat $OUT/r/table
cd $OUT && tar czf x.tgz r && rm -rf r
