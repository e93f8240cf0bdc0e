#!/bin/bash
# s102: rule short_lines widened (de-interleaves into aligned lines, aligned whole-vector interleaves) on p102 (08ed1b0 + short_lines changes):
# the whole GPU suite, memcheck on short_lines; A/B against 08ed1b0 (p98): 500 N-D draws (seed 4268905393), 500 2-D draws (seed 1862644054)
cd "$(dirname "$0")/.." ; tar xJf .lab/p98.txz -C .lab; tar xJf .lab/p102.txz -C .lab
O=$PWD/.lab/p98; N=$PWD/.lab/p102; R=$OUT/r; mkdir -p $R
export LD_LIBRARY_PATH=/usr/local/cuda/lib64
timeout 360 $N/xpose_gpu_tests --gtest_brief=1 > $R/suite.log 2>&1; echo "suite rc $? $(tail -3 $R/suite.log | tr '\n' ' ')" > $R/head
timeout 60 compute-sanitizer --tool memcheck $N/xpose_gpu_tests --gtest_filter='*Sweep*short_lines_1B*:*Sweep*short_lines_2B*' --gtest_brief=1 > $R/memcheck.log 2>&1; echo "memcheck rc $? $(tail -1 $R/memcheck.log)" >> $R/head
for b in O N; do d=${!b}
  timeout 60 $d/xpose-permute-bench --random 500 --seed 4268905393 --no-host-time --json $R/nd-$b.jsonl > $R/nd-$b.txt 2>&1
  timeout 80 $d/xpose-bench --random 500 --seed 1862644054 --no-peers --no-progress --json $R/2d-$b.jsonl > $R/2d-$b.txt 2>&1
done
python3 bench/table.py ab $R/nd-O.jsonl $R/nd-N.jsonl > $R/ab-nd.md 2>&1
python3 bench/table.py ab $R/2d-O.jsonl $R/2d-N.jsonl > $R/ab-2d.md 2>&1
cat $R/head; tail -30 $R/ab-nd.md; tail -30 $R/ab-2d.md
cd $OUT && tar czf x.tgz r && rm -rf r
