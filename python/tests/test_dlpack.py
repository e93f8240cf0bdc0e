"""Arrays of other libraries that speak DLPack (JAX and the like), on the host: a stand-in
library whose arrays only speak DLPack goes in, and its own array type comes back with
NumPy's result, bit for bit; what such a call cannot take is refused in one line."""
import sys
import types

import numpy as np
import pytest

import xpose

fakelib = types.ModuleType("fakelib")


class FakeArray:
    """An array type xpose does not know, which speaks DLPack only."""

    def __init__(self, a):
        self.a = a

    def __dlpack__(self, **kwargs):
        return self.a.__dlpack__(**kwargs)

    def __dlpack_device__(self):
        return self.a.__dlpack_device__()


FakeArray.__module__ = "fakelib"
fakelib.FakeArray = FakeArray
fakelib.from_dlpack = lambda obj: FakeArray(np.from_dlpack(obj))


@pytest.fixture(autouse=True)
def registered():
    sys.modules["fakelib"] = fakelib
    yield
    del sys.modules["fakelib"]


def bits(a):
    return np.ascontiguousarray(a).view(np.uint8).tobytes()


def test_transpose_and_permute_come_back_in_the_callers_library():
    rng = np.random.default_rng()
    a = rng.integers(0, 2**31, size=(3, 17, 29), dtype=np.int32).view(np.float32)
    y = xpose.transpose(FakeArray(a))
    assert isinstance(y, FakeArray) and bits(y.a) == bits(np.swapaxes(a, -1, -2))
    z = xpose.permute(FakeArray(a), (2, 0, 1))
    assert isinstance(z, FakeArray) and bits(z.a) == bits(np.transpose(a, (2, 0, 1)))


def test_what_a_foreign_array_cannot_take_is_refused():
    a = np.zeros((4, 5), np.float32)
    with pytest.raises(TypeError, match="^xpose.transpose: out must be a NumPy, PyTorch or CuPy array; x is a fakelib"):
        xpose.transpose(FakeArray(a), out=np.zeros((5, 4), np.float32))

    class Elsewhere(FakeArray):
        def __dlpack_device__(self):
            return (14, 0)  # a device xpose does not serve

    Elsewhere.__module__ = "fakelib"
    with pytest.raises(ValueError, match="^xpose.permute: x \\(fakelib\\) lives on DLPack device type 14"):
        xpose.permute(Elsewhere(a), (1, 0))
