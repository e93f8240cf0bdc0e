#!/bin/bash
# fp16 in aligned_stores: which half (span-bound staging for 2-byte elements: s2; edge stores in parts: p1) moves it
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
tar xJf .lab/pbv.txz -C .lab; mkdir -p $OUT/r; P=.lab/pbv
for c in "fp16 669,113,2,217 2,0,3,1" "fp16 5,66,13,1517,10 4,3,1,0,2" "fp16 142,3253,39 2,1,0" "fp16 44,40,2280,34 1,3,0,2" "fp16 516,297,40,2 2,1,3,0" "fp16 9,23,1757,98 3,2,0,1" "fp16 37,12,2535,70 3,0,2,1" "u8 5,501,709,75 3,1,2,0"; do
  set -- $c; line="N-D $1 $2 ($3):"
  for round in 1 2; do for b in nd-old nd-s2-p1 nd-s1-p1 nd-s2-p0; do
    timeout 60 $P/$b --dtype $1 --extents $2 --perm $3 --reps 10 --no-host-time --kernel auto > $OUT/r/$b-$1-$2-$round.txt 2>&1
    line="$line $b $(grep -E '^  auto ' $OUT/r/$b-$1-$2-$round.txt | awk '{print $6}')"
  done; done
  echo "$line" >> $OUT/r/table
done
cat $OUT/r/table
cd $OUT && tar czf x.tgz r && rm -rf r
