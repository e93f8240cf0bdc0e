#!/bin/bash
# s122 (from .lab/; p120 = 96f351f, p121 = lines at 3 blocks an SM for bytes, p122 = the same at 2): s121's 40 u8 draws
# through each build's choice, two rounds; then Nsight Compute on three draws the word stores lost (p120 against p121).
cd "$(dirname "$0")/.." ; for b in p120 p121 p122; do tar xJf .lab/$b.txz -C .lab; done
R=$OUT/r; mkdir -p $R
export LD_LIBRARY_PATH=/usr/local/cuda/lib64
while read dt ex pm; do
  for b in p120 p121 p122; do
    timeout 30 .lab/$b/xpose-permute-bench --dtype $dt --extents $ex --perm $pm --kernel auto --reps 10 --rounds 2 --no-host-time --explain --json $R/a-$b.jsonl >> $R/a-$b.txt 2>&1
  done
done < docs/results/2026-12-02-gather/s122-u8.txt
python3 - $R > $R/table <<'P'
import json,sys,statistics
R=sys.argv[1]
def load(f):
    d={}
    for l in open(f'{R}/{f}'):
        r=json.loads(l)
        if r['role']=='xpose': d.setdefault(r['case'],{})[r['kernel']]=r['pct_copy']
    return d
h=load('a-p120.jsonl')
for b in ('p121','p122'):
    n=load(f'a-{b}.jsonl')
    cs=[c for c in h if c in n]
    v=[n[c]['auto']-h[c]['auto'] for c in cs]
    print(f"{b} {len(v)}: before median {statistics.median(h[c]['auto'] for c in cs):.1f} after {statistics.median(n[c]['auto'] for c in cs):.1f}; diff median {statistics.median(v):+.1f} ahead>2 {sum(x>2 for x in v)} behind>2 {sum(x<-2 for x in v)} worst {min(v):+.1f} best {max(v):+.1f}")
P
cat $R/table
i=0; for c in u8:221,16,273,50:1,0,3,2 u8:22,1578,2,48,6:4,2,1,0,3 u8:1279,25,284,15:3,0,1,2; do IFS=: read dt ex pm <<< "$c"; i=$((i+1))
  for b in p120 p121; do
  timeout 90 ncu --clock-control none --kernel-name regex:permute_packed --launch-count 1 --section SpeedOfLight --section WarpStateStats --section SchedulerStats --section InstructionStats --section Occupancy --section LaunchStats --section MemoryWorkloadAnalysis_Tables \
    --metrics l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum,l1tex__data_pipe_lsu_wavefronts.avg.pct_of_peak_sustained_elapsed,l1tex__t_requests_pipe_lsu_mem_global_op_st.sum,lts__t_sectors_op_write.sum,dram__bytes_write.sum,dram__bytes_read.sum,smsp__pcsamp_warps_issue_stalled_barrier,smsp__average_warp_latency_issue_stalled_barrier.ratio,smsp__average_warp_latency_issue_stalled_long_scoreboard.ratio,smsp__average_warp_latency_issue_stalled_short_scoreboard.ratio,smsp__average_warp_latency_issue_stalled_mio_throttle.ratio,smsp__average_warp_latency_issue_stalled_lg_throttle.ratio \
    .lab/$b/xpose-permute-bench --dtype $dt --extents $ex --perm $pm --kernel auto --reps 1 --warmup 0 --no-host-time > $R/ncu-$i-$b.txt 2>&1
  echo "$i $b $dt $ex ($pm): $(grep -E '^ +(Duration|DRAM Throughput|Registers Per Thread|Achieved Occupancy|Executed Instructions|One or More Eligible|dram__bytes_write.sum|dram__bytes_read.sum|lts__t_sectors_op_write.sum|l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum|l1tex__t_requests_pipe_lsu_mem_global_op_st.sum|smsp__average_warp_latency_issue_stalled_\w+.ratio) ' $R/ncu-$i-$b.txt | awk '{printf "%s=%s ", $1, $NF}')" >> $R/ncu-table
  done
done
cat $R/ncu-table
cd $OUT && tar czf x.tgz r && rm -rf r
