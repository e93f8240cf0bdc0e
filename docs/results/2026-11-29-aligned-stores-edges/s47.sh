#!/bin/bash
# re-measure s46's losers (and two winners), old and new alternating, twice each
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
tar xJf .lab/pbt.txz -C .lab; mkdir -p $OUT/r; P=.lab/pbt
for c in "fp64 2704x989x24 1029 2764" "fp64 5285x832x51 851 5289" "fp32 731x1777x55 0 0" "fp16 62656x576 0 0" "u8 1001x3001 0 0"; do
  set -- $c; line="2-D $1 $2 ld $3/$4:"
  for round in 1 2; do for b in old2d new2d; do
    timeout 60 $P/$b --dtype $1 --shape $2 --ld-src $3 --ld-dst $4 --kernel auto --reps 10 --no-peers > $OUT/r/$b-$1-$2-$round.txt 2>&1
    line="$line $b $(grep -E '^  auto ' $OUT/r/$b-$1-$2-$round.txt | awk '{print $6}')"
  done; done
  echo "$line" >> $OUT/r/table
done
for c in "fp16 297,28,1866 2,0,1" "fp16 669,113,2,217 2,0,3,1" "fp16 5,66,13,1517,10 4,3,1,0,2" "c128 574,6,816 0,2,1" "u8 5,501,709,75 3,1,2,0" "fp32 266,362,6,3,57 2,4,3,0,1"; do
  set -- $c; line="N-D $1 $2 ($3):"
  for round in 1 2; do for b in old new; do
    timeout 60 $P/$b --dtype $1 --extents $2 --perm $3 --reps 10 --no-host-time --kernel auto > $OUT/r/$b-$1-$2-$round.txt 2>&1
    line="$line $b $(grep -E '^  auto ' $OUT/r/$b-$1-$2-$round.txt | awk '{print $6, $NF}')"
  done; done
  echo "$line" >> $OUT/r/table
done
cat $OUT/r/table
cd $OUT && tar czf x.tgz r && rm -rf r
