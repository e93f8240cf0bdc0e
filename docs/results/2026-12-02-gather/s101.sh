#!/bin/bash
# s101: short_lines as in s100 without a division by S in the kernel, windows staged at linear places (p101 on 08ed1b0): tests, memcheck, racecheck; (A) short sides of 12-128 bytes both ways, aligned and odd lines; (B) de-interleaves
# the GPU tests of short_lines and auto, memcheck and racecheck; (A) short sides of whole 16-byte vectors, both directions; (B) de-interleaves: the choice against short_lines
cd "$(dirname "$0")/.." ; tar xJf .lab/p101.txz -C .lab
N=$PWD/.lab/p101; R=$OUT/r; mkdir -p $R
export LD_LIBRARY_PATH=/usr/local/cuda/lib64
timeout 120 $N/xpose_gpu_tests --gtest_filter='*short_lines*:*Sweep*auto*' --gtest_brief=1 > $R/tests.log 2>&1; echo "tests rc $? $(tail -2 $R/tests.log | tr '\n' ' ')" > $R/head
timeout 120 compute-sanitizer --tool memcheck $N/xpose_gpu_tests --gtest_filter='*Sweep*short_lines_1B*:*Sweep*short_lines_2B*:*Sweep*short_lines_8B*' --gtest_brief=1 > $R/memcheck.log 2>&1; echo "memcheck rc $? $(tail -1 $R/memcheck.log)" >> $R/head
timeout 120 compute-sanitizer --tool racecheck $N/xpose_gpu_tests --gtest_filter='*Sweep*short_lines_1B*:*Sweep*short_lines_4B*' --gtest_brief=1 > $R/racecheck.log 2>&1; echo "racecheck rc $? $(tail -1 $R/racecheck.log)" >> $R/head
B="--no-peers --check --reps 20 --no-progress"
for t in u8 fp16 fp32; do
  e=$(case $t in u8) echo 1;; fp16) echo 2;; fp32) echo 4;; esac)
  for sb in 12 16 20 24 32 40 48 56 64 80 96 112 128; do
    s=$((sb / e)); [ $((s * e)) -eq $sb ] && [ $s -ge 9 ] || continue
    c=$(( (64 << 20) / sb / 16 * 16 ))
    for sh in ${s}x$c ${s}x$((c + 1)) ${c}x$s $((c + 1))x$s; do
      timeout 60 $N/xpose-bench --dtype $t --shape $sh --kernel auto short_lines $B --json $R/a.jsonl >> $R/a.txt 2>&1
    done
  done
done
while read dt sh; do
  timeout 60 $N/xpose-bench --dtype $dt --shape $sh --kernel auto short_lines $B --json $R/b.jsonl >> $R/b.txt 2>&1
done <<'L'
u8 26073x41
fp16 50915x23
fp16 26496x63
u8 38375x49
fp64 61248x15
fp16 47744x25
fp16 63101x15
u8 43392x31
u8 34747x67
fp32 303075x21
u8 178530x125
u8 2373030x12
u8 1001559x108
u8 1719441x35
u8 1877232x55
fp32 875493x19
u8 3082272x21
fp16 1003000x50
fp64 15162x9x16
fp16 2208x13x3348
fp32 1000003x10
fp16 1000003x100
u8 100003x10x50
L
python3 - $R > $R/table <<'P'
import json,sys,collections
R=sys.argv[1]
def load(f):
    d=collections.defaultdict(dict)
    try:
        for l in open(f):
            r=json.loads(l)
            if r['role']=='xpose': d[r['case']][r['kernel']]=(r['pct_copy'],r.get('chosen',''),r.get('check',''))
    except FileNotFoundError: pass
    return d
for name in ['a','b']:
    print('(A) short sides of whole vectors' if name=='a' else '(B) de-interleaves')
    for c,k in load(f'{R}/{name}.jsonl').items():
        au=k.pop('auto',(0,'',''))
        print(f"{c[:30]:30s} auto {au[0]:5.1f} {au[1][:16]:16s} | "+" ".join(f"{n[:12]} {v[0]:.1f}" for n,v in sorted(k.items())))
P
echo "failed checks: $(grep -ic 'fail\|mismatch' $R/a.txt $R/b.txt | tr '\n' ' ')" >> $R/table
cat $R/head $R/table
cd $OUT && tar czf x.tgz r && rm -rf r
