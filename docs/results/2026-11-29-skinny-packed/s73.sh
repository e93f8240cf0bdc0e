#!/bin/bash
# 953622d: skinny S=8 shifted staging check; ncu on permute_packed draws
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
tar xJf .lab/pd.txz -C .lab; mkdir -p $OUT/r; P=.lab/pd; T=$OUT/r/table
timeout 60 $P/gpu_tests --gtest_brief=1 --gtest_filter='*kinny*' > $OUT/r/sktests.log 2>&1; echo "sk tests rc $? $(grep -E '^\[  (PASSED|FAILED)' $OUT/r/sktests.log | tr '\n' ' ')" >> $T
for t in memcheck racecheck; do for sh in "u8 8x100003" "fp64 8x10001"; do set -- $sh
timeout 60 compute-sanitizer --tool $t --error-exitcode 9 $P/new2d --dtype $1 --shape $2 --kernel skinny --no-peers --reps 1 --warmup 0 --check > $OUT/r/san-$t-$1-$2.txt 2>&1; echo "$t $1 $2 rc $?" >> $T; done; done
for d in u8:1 fp16:2 fp32:4 fp64:8; do n=${d%%:*}; e=${d##*:}; for S in 2 8; do N=$(( (16<<20) / (S*e) | 1 ))
timeout 30 $P/new2d --dtype $n --shape ${S}x$N --kernel auto --no-peers --reps 20 --check > $OUT/r/sk-$n-$S.txt 2>&1; echo "$n ${S}x$N $(awk '$1=="auto"{print $6, $7; exit}' $OUT/r/sk-$n-$S.txt)" >> $T; done; done
i=0; for c in "u8 85,89,17,260 0,1,3,2" "u8 103,1161,39,19,5 3,1,2,4,0" "u8 2,8,745,140,117 2,1,4,3,0" "fp16 5,2861,3,1364,2 3,4,1,0,2" "u8 10,2912,748 1,2,0"; do set -- $c; i=$((i+1))
timeout 60 $P/new --dtype $1 --extents $2 --perm $3 --kernel auto --reps 10 --no-host-time --check > $OUT/r/p$i.txt 2>&1; echo "$c: $(grep -E 'auto' $OUT/r/p$i.txt | head -1)" >> $T
timeout 120 ncu --clock-control none -k regex:permute_packed -c 1 --section SpeedOfLight --section WarpStateStats --section Occupancy --section LaunchStats --section InstructionStats --section MemoryWorkloadAnalysis --metrics dram__bytes_read.sum,dram__bytes_write.sum,smsp__inst_executed.sum,smsp__thread_inst_executed.sum,lts__t_sectors_op_write.sum,lts__t_sectors_op_read.sum $P/new --dtype $1 --extents $2 --perm $3 --kernel auto --reps 1 --warmup 0 --no-host-time > $OUT/r/ncu$i.txt 2>&1
grep -E "Duration|DRAM Throughput|dram__bytes|inst_executed|Issue Slots Busy|Executed Ipc A|Achieved Occupancy|Registers Per|lts__t_sectors|Stall" $OUT/r/ncu$i.txt | head -20 >> $OUT/r/ncu-summary; done
cat $T; cat $OUT/r/ncu-summary
cd $OUT && tar czf x.tgz r && rm -rf r
