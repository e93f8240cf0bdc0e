"""One version: the package's, its native library's and the installed distribution's
(xpose-cuda; all three come from xpose.h's XPOSE_VERSION_* macros). And the whole library:
a wheel built without the CUTLASS headers would lack the CuTe family (no GPU needed)."""
import importlib.metadata

import pytest

import xpose

DISTRIBUTION = "xpose-cuda"  # python/pyproject.toml's [project] name; the import is xpose


def test_version_is_the_native_librarys():
    assert xpose.__version__ == xpose._xpose.version()
    assert len(xpose.__version__.split(".")) == 3


def test_version_is_the_distributions():
    try:
        installed = importlib.metadata.version(DISTRIBUTION)
    except importlib.metadata.PackageNotFoundError:
        pytest.skip(f"{DISTRIBUTION} is not installed (xpose built by CMake alone, as tools/gpu-check does)")
    assert xpose.__version__ == installed


def test_the_cute_family_is_built():
    cute = {"cute_naive_read", "cute_naive_write", "cute_smem_conflict_read", "cute_smem_conflict_write",
            "cute_padded", "cute_swizzled", "cute_vectorized", "cute_vectorized_swizzled", "cute_tma"}
    assert cute <= set(xpose.kernels()), "built without the CUTLASS headers: " + ", ".join(xpose.kernels())
