#!/bin/bash
# random N-D draws, auto: old (5ab9d66) against new (row_vectors vectors + store_part; H200 min_run_1 64), same seeds, alternating
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
mkdir -p $OUT/r; P=.lab/pbs
S1=$(od -An -N4 -tu4 /dev/urandom | tr -d ' '); S2=$(od -An -N4 -tu4 /dev/urandom | tr -d ' ')
for s in $S1; do for b in old new; do
  timeout 270 $P/$b --random 250 --seed $s --reps 5 --no-host-time --json $OUT/r/$b-$s.jsonl > $OUT/r/$b-$s.txt 2>&1
  echo "$b seed $s rc $? $(grep -iE 'median' $OUT/r/$b-$s.txt | head -2 | tr '\n' ' ')" >> $OUT/r/table
done; done
cat $OUT/r/table
cd $OUT && tar czf x.tgz r && rm -rf r
