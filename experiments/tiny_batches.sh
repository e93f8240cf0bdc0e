#!/bin/bash
# Batches of small matrices: tiny_batched (whole matrices per block) against the tile kernels
# (cute_vectorized_swizzled, smem_swizzled, tma_swizzle128, vec_swizzled) and the automatic
# choice, each as a % of the same-run copy (graph-timed where the problem fits in L2), every
# result checked. Behind rule 1a and tiny_batched's divisions (docs/performance.md, "The rules").
#
#   OUT=dir experiments/tiny_batches.sh        on a GPU machine, from the repository root;
#                                              builds build-gpu/bench/xpose-bench unless BENCH names one
# Writes $OUT/tiny-batches.txt (every line of every run) and prints one line a shape.
set -u
OUT=${OUT:-$PWD/tiny-batches-out}
mkdir -p "$OUT"
b=${BENCH:-build-gpu/bench/xpose-bench}
if [ -z "${BENCH:-}" ]; then
  { cmake -S . -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release -DXPOSE_CUDA_ARCHITECTURES=90a-real &&
      cmake --build build-gpu -j"$(nproc)" --target xpose-bench; } > "$OUT/tiny-batches-build.log" 2>&1 ||
    { tail -30 "$OUT/tiny-batches-build.log"; exit 1; }
fi
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
for spec in "fp32 32x32x300" "fp32 32x32x1000" "fp32 32x32x3000" "fp32 32x32x10000" "fp32 32x32x30000" "fp32 32x32x65536" \
            "fp16 32x64x1000" "fp16 32x64x10000" "fp16 32x64x100000" "fp64 16x16x1000" "fp64 16x16x10000" "fp64 16x16x100000" \
            "fp32 16x16x1000" "fp32 16x16x30000" "fp32 16x16x262144" "bf16 24x40x1000" "bf16 24x40x100000" \
            "u8 64x64x1000" "u8 64x64x10000" "u8 64x64x100000" "c128 8x16x1000" "fp64 8x24x3000"; do
  set -- $spec
  echo "== $1 $2"
  $b --dtype $1 --shape $2 --kernel tiny_batched cute_vectorized_swizzled smem_swizzled tma_swizzle128 vec_swizzled auto \
    --no-peers --check --explain --reps 30 --no-progress 2>&1
done > "$OUT/tiny-batches.txt"
echo "checked: $(grep -c ' passed$' "$OUT/tiny-batches.txt") passed, $(grep -c -i 'fail' "$OUT/tiny-batches.txt") failed"
awk '/^== /{if (s) print s; s=sprintf("%-5s %-12s", $2, $3)}
     /^  [a-z_0-9]+ +[0-9.]+ +[0-9.]+ +[0-9.]+ +[0-9.]+ +[0-9.]+%/ && !/copy|cudaMemcpy/{s=s sprintf(" %s %s", substr($1,1,7), $6)}
     END{print s}' "$OUT/tiny-batches.txt"
