#!/bin/bash
# s159 (from the repository root; issue 34): the Python package on 8908605's library (p19): its quantize and JAX
# tests (torch custom op, torch.compile, JAX FFI) with the staged kernel's shifted vectors, on the GPU.
cd "$(dirname "$0")/../../.." ; tar xJf .lab/p19.txz -C .lab
R=$OUT/r; mkdir -p $R
export LD_LIBRARY_PATH=/usr/local/cuda/lib64 XLA_PYTHON_CLIENT_PREALLOCATE=false XPOSE_COMMIT=8908605
site=$PWD/build-py/site; rm -rf build-py
{ cmake -S python -B build-py -G Ninja -DCMAKE_BUILD_TYPE=Release -DXPOSE_LIBRARY=$PWD/.lab/p19/libxpose.a &&
  cmake --build build-py -j 16 && cmake --install build-py --prefix $site && cp python/xpose/*.py $site/xpose/ &&
  python3 -m pip install --quiet --no-index --no-deps --target $site .deps/wheels/*.whl; } > $R/build.txt 2>&1
echo "build rc $?"
(cd build-py && PYTHONPATH=$site HYPOTHESIS_PROFILE=ci timeout 200 python3 -m pytest -q -rs ../python/tests/test_inplace_quantize.py ../python/tests/test_jax.py) > $R/pytest.txt 2>&1
echo "pytest rc $?: $(tail -1 $R/pytest.txt)"
cd $OUT && tar czf x.tgz r && rm -rf r
