#!/bin/bash
# s121 (from .lab/; p120 = 96f351f, p121 = 96f351f + permute_packed_lines, uncommitted): the GPU tests of permutations
# and plans (the new Permute.PackedLinesOnTheirShapes among them), then 70 draws of fresh seed 138308547 that take the
# word stores (s121-lines.txt: 40 u8, 30 fp16 of its 1367 of 60000), each build's choice, two rounds; then Nsight
# Compute on two u8 draws of s120 with the new kernel.
cd "$(dirname "$0")/.." ; tar xJf .lab/p120.txz -C .lab; tar xJf .lab/p121.txz -C .lab
R=$OUT/r; mkdir -p $R
export LD_LIBRARY_PATH=/usr/local/cuda/lib64
timeout 240 .lab/p121/xpose_gpu_tests --gtest_filter='Permute.*:Plan.*' > $R/tests.txt 2>&1; echo "tests rc $?"; tail -3 $R/tests.txt
while read dt ex pm; do
  for b in p120 p121; do
    timeout 30 .lab/$b/xpose-permute-bench --dtype $dt --extents $ex --perm $pm --kernel auto --reps 10 --rounds 2 --no-host-time --explain --json $R/a-$b.jsonl >> $R/a-$b.txt 2>&1
  done
done < docs/results/2026-12-02-gather/s121-lines.txt
python3 - $R > $R/table <<'P'
import json,sys,statistics
R=sys.argv[1]
def load(f):
    d={}
    for l in open(f'{R}/{f}'):
        r=json.loads(l)
        if r['role']=='xpose': d.setdefault(r['case'],{})[r['kernel']]=r['pct_copy']
    return d
h,n=load('a-p120.jsonl'),load('a-p121.jsonl')
for dt in ('u8','fp16'):
    cs=[c for c in h if c in n and c.startswith(dt+' ')]
    v=[n[c]['auto']-h[c]['auto'] for c in cs]
    print(f"{dt} {len(v)}: before median {statistics.median(h[c]['auto'] for c in cs):.1f} after {statistics.median(n[c]['auto'] for c in cs):.1f}; diff median {statistics.median(v):+.1f} ahead>2 {sum(x>2 for x in v)} behind>2 {sum(x<-2 for x in v)} worst {min(v):+.1f} best {max(v):+.1f}")
for c in sorted(h, key=lambda c: n.get(c,{}).get('auto',0)-h[c]['auto'])[:6]:
    print(f"  {c[:50]:50s} {h[c]['auto']:5.1f} -> {n.get(c,{}).get('auto',0):5.1f}")
P
cat $R/table
i=0; for c in u8:180,858,248,3:1,3,0,2 u8:3057,126,63,9:0,3,1,2; do IFS=: read dt ex pm <<< "$c"; i=$((i+1))
  timeout 90 ncu --clock-control none --kernel-name regex:permute_packed --launch-count 1 --section SpeedOfLight --section WarpStateStats --section SchedulerStats --section InstructionStats --section Occupancy --section LaunchStats \
    --metrics l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum,l1tex__data_pipe_lsu_wavefronts.avg.pct_of_peak_sustained_elapsed,l1tex__t_requests_pipe_lsu_mem_global_op_st.sum,lts__t_sectors_op_write.sum \
    .lab/p121/xpose-permute-bench --dtype $dt --extents $ex --perm $pm --kernel auto --reps 1 --warmup 0 --no-host-time > $R/ncu-$i.txt 2>&1
  echo "$i $dt $ex ($pm): $(grep -E '^ +(Duration|DRAM Throughput|Registers Per Thread|Achieved Occupancy|Executed Instructions|One or More Eligible|l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum|l1tex__data_pipe_lsu_wavefronts.avg.pct_of_peak_sustained_elapsed|l1tex__t_requests_pipe_lsu_mem_global_op_st.sum|lts__t_sectors_op_write.sum) ' $R/ncu-$i.txt | awk '{printf "%s=%s ", $1, $NF}')" >> $R/ncu-table
done
cat $R/ncu-table
cd $OUT && tar czf x.tgz r && rm -rf r
