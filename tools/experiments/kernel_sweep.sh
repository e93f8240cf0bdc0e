#!/bin/bash
# Named kernels and the automatic choice on a list of shapes, each as a % of the same-run copy
# (graph-timed where the problem fits in L2), every result checked, and one summary line a
# shape. The sweeps behind rules 1a and 5 and tiny_batched's divisions (docs/performance.md).
#
#   OUT=dir tools/experiments/kernel_sweep.sh KERNELS "DTYPE RxC[xB]" ...
#     KERNELS: comma-separated xpose-bench kernel names (auto is added). Run on a GPU machine
#     from the repository root; builds build-gpu/bench/xpose-bench unless BENCH names one.
#   e.g. the batches of small matrices (rule 1a):
#     tools/experiments/kernel_sweep.sh tiny_batched,cute_vectorized_swizzled,smem_swizzled,tma_swizzle128,vec_swizzled \
#       "fp32 32x32x300" "fp32 32x32x1000" "fp32 32x32x65536" "fp16 32x64x1000" "fp64 16x16x10000" "u8 64x64x1000"
# Writes every line of every run to $OUT/${NAME:-kernel-sweep}.txt.
set -u
[ $# -ge 2 ] || { sed -n 2,12p "$0"; exit 2; }
OUT=${OUT:-$PWD/kernel-sweep-out}
mkdir -p "$OUT"
kernels=$1; shift
log=$OUT/${NAME:-kernel-sweep}.txt
b=${BENCH:-build-gpu/bench/xpose-bench}
if [ -z "${BENCH:-}" ]; then
  { cmake -S . -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release -DXPOSE_CUDA_ARCHITECTURES=90a-real &&
      cmake --build build-gpu -j"$(nproc)" --target xpose-bench; } > "$OUT/kernel-sweep-build.log" 2>&1 ||
    { tail -30 "$OUT/kernel-sweep-build.log"; exit 1; }
fi
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
for spec in "$@"; do
  set -- $spec
  echo "## $1 $2"
  $b --dtype "$1" --shape "$2" --kernel "$kernels,auto" --no-peers --check --explain --reps 30 --no-progress 2>&1
done > "$log"
echo "checked: $(grep -c ' passed$' "$log") passed, $(grep -c -i 'fail' "$log") failed"
awk '/^## /{if (s) print s; s=sprintf("%-5s %-14s", $2, $3)}
     /^  [a-z_0-9]+ +[0-9.]+ +[0-9.]+ +[0-9.]+ +[0-9.]+ +[0-9.]+%/ && !/copy|cudaMemcpy/{s=s sprintf(" %s %s", substr($1,1,9), $6)}
     END{print s}' "$log"
