"""Arrays as views into guarded arenas, for the property tests: a layout is a plain value
(item size, shape, byte strides, byte offset), built into a NumPy, PyTorch or CuPy view of
an arena of random bytes with room on both sides, so a test can see every byte a call wrote.
Hypothesis strategies draw the layouts."""
import numpy as np
from hypothesis import strategies as st

GUARD = 64  # bytes of arena before the lowest and after the highest byte a view addresses

# The same bits under one unsigned name per item size: what the expected result is built from.
BITS = {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64, 16: np.dtype("V16")}


class Layout:
    """One array as a view of an arena: `offset` is the byte of element (0, ..., 0)."""

    def __init__(self, itemsize, shape, strides, offset, arena_bytes):
        self.itemsize, self.shape, self.strides = itemsize, tuple(shape), tuple(strides)
        self.offset, self.arena_bytes = offset, arena_bytes

    def __repr__(self):
        return (f"Layout(itemsize={self.itemsize}, shape={self.shape}, strides={self.strides}, "
                f"offset={self.offset}, arena_bytes={self.arena_bytes})")

    def size(self):
        return int(np.prod(self.shape, dtype=np.int64))

    def element_offsets(self):
        """The byte offset in the arena of every element, in row-major index order."""
        offsets = np.full(self.shape, self.offset, np.int64)
        for axis, (n, s) in enumerate(zip(self.shape, self.strides)):
            step = np.arange(n, dtype=np.int64) * s
            offsets += step.reshape((1,) * axis + (n,) + (1,) * (len(self.shape) - axis - 1))
        return offsets.reshape(-1)

    def owned_bytes(self):
        """A mask of the arena's bytes that belong to some element."""
        mask = np.zeros(self.arena_bytes, bool)
        for offset in self.element_offsets():
            mask[offset:offset + self.itemsize] = True
        return mask

    def numpy_view(self, arena, dtype):
        return np.ndarray(self.shape, dtype=dtype, buffer=arena, offset=self.offset, strides=self.strides)

    def bits(self, host_arena):
        """The elements' bytes as an array of the item size's unsigned type (row-major copy)."""
        return np.array(self.numpy_view(host_arena, BITS[self.itemsize]), copy=True, order="C")


def extent_of(shape, strides, itemsize):
    """(lowest, one past the highest) byte a view addresses relative to its first element."""
    if 0 in shape:
        return 0, 0
    low = sum(min(0, (n - 1) * s) for n, s in zip(shape, strides))
    high = sum(max(0, (n - 1) * s) for n, s in zip(shape, strides)) + itemsize
    return low, high


EXTENTS = st.one_of(st.integers(0, 5), st.sampled_from([1, 2, 3, 7, 8, 9, 15, 16, 17, 31, 32, 33, 64, 65]))


@st.composite
def element_strides(draw, shape):
    """Strides in elements, last axis first: mostly nested (packed or padded), sometimes zero
    (broadcast), overlapping, negative or odd."""
    strides, span = [], 1
    for n in reversed(shape):
        kind = draw(st.sampled_from(["nest"] * 6 + ["zero", "any", "neg"]))
        if kind == "nest":
            stride = span + (draw(st.integers(0, 3)) if strides else draw(st.sampled_from([0, 0, 0, 1])))
        elif kind == "zero":
            stride = 0
        elif kind == "any":
            stride = draw(st.integers(-9, 9))
        else:
            stride = -span
        strides.append(stride)
        span = max(span, abs(stride) * max(n - 1, 0) + span)
    return tuple(reversed(strides))


@st.composite
def layouts(draw, itemsize, shape, whole_elements=True, aligned=True, negative=True):
    strides = draw(element_strides(shape))
    if not negative:
        strides = tuple(abs(s) for s in strides)
    byte_strides = [s * itemsize for s in strides]
    if not whole_elements and itemsize > 1 and draw(st.integers(0, 19)) == 0:
        axis = draw(st.integers(0, len(shape) - 1)) if shape else None
        if axis is not None:
            byte_strides[axis] += draw(st.integers(1, itemsize - 1))
    low, high = extent_of(shape, byte_strides, itemsize)
    misalign = 0 if aligned or draw(st.integers(0, 9)) else draw(st.integers(1, itemsize - 1)) if itemsize > 1 else 0
    offset = GUARD - low + misalign
    offset += (-offset) % 16 if misalign == 0 else 0  # aligned views start on 16 bytes, as allocations do
    arena_bytes = offset + high + GUARD
    arena_bytes += (-arena_bytes) % 16  # whole 16-byte words, so any item size views the arena
    return Layout(itemsize, shape, byte_strides, offset, arena_bytes)


def random_arena(nbytes, rng):
    return rng.integers(0, 256, size=nbytes, dtype=np.uint8)
