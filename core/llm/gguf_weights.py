"""A GGUF file without its tokenizer's vocabulary arrays, for loading the weights alone.

transformers reads a GGUF through gguf-py's GGUFReader, which turns every element of every metadata array into numpy
views, and then parses each into Python, twice per load (once for the config, once for the tensors). Gemma 3's 262,144
tokens, scores and token types are 1.6 million parts: about 45 of the 63 s a float32 load took on a 2-core AMD EPYC,
against 4 s of actual dequantizing. The tokenizer is read elsewhere (from its own small cache), so the model load is
given a copy of the file that holds everything but those arrays, plus `<arch>.vocab_size` (which transformers would
otherwise count from the tokens): the same header fields, tensor table and tensor bytes, written into the model
cache and deleted after the load (`local_models._from_gguf`).

The format (GGUF v2 and v3, little-endian): magic, version (u32), tensor count and metadata count (u64), the
metadata (key string, value type u32, value), the tensor table (name, dimensions, type, offset relative to the data),
padding to `general.alignment` (default 32), then the tensor data.
"""
from __future__ import annotations

import shutil
import struct
from dataclasses import dataclass
from pathlib import Path

MAGIC = b"GGUF"
UINT32, STRING, ARRAY, UINT64 = 4, 8, 9, 10
_SCALARS = {0: "<B", 1: "<b", 2: "<H", 3: "<h", 4: "<I", 5: "<i", 6: "<f", 7: "<?", 10: "<Q", 11: "<q", 12: "<d"}
DEFAULT_ALIGNMENT = 32
DROPPED_PREFIX = "tokenizer.ggml."  # its arrays (tokens, scores, token types, merges) are the tokenizer's alone


class GGUFFormatError(ValueError):
    """The file is not a GGUF this module can read."""


@dataclass(frozen=True)
class _Entry:
    key: str
    start: int      # the entry's bytes in the file, key to end of value
    end: int
    value_type: int
    count: int      # an array's element count (1 for a scalar or a string)
    value: object   # a scalar or string's value; None for an array


class _Cursor:
    def __init__(self, data: bytes | memoryview) -> None:
        self.data, self.pos = data, 0

    def take(self, fmt: str) -> tuple[object, ...]:
        size = struct.calcsize(fmt)
        if self.pos + size > len(self.data):
            raise GGUFFormatError("the file ends inside its metadata")
        out = struct.unpack_from(fmt, self.data, self.pos)
        self.pos += size
        return out

    def u32(self) -> int:
        return int(self.take("<I")[0])  # type: ignore[call-overload]

    def u64(self) -> int:
        return int(self.take("<Q")[0])  # type: ignore[call-overload]

    def string(self) -> str:
        size = self.u64()
        if self.pos + size > len(self.data):
            raise GGUFFormatError("the file ends inside a string")
        raw = bytes(self.data[self.pos:self.pos + size])
        self.pos += size
        return raw.decode("utf-8", errors="replace")

    def skip_strings(self, count: int) -> None:
        try:
            for _ in range(count):
                (size,) = struct.unpack_from("<Q", self.data, self.pos)
                self.pos += 8 + size
        except struct.error as exc:
            raise GGUFFormatError("the file ends inside a string array") from exc
        if self.pos > len(self.data):
            raise GGUFFormatError("the file ends inside a string array")

    def value(self, value_type: int) -> tuple[object, int]:
        """A value of `value_type`: (its value, or None for an array; an array's element count)."""
        if value_type == STRING:
            return self.string(), 1
        if value_type in _SCALARS:
            return self.take(_SCALARS[value_type])[0], 1
        if value_type != ARRAY:
            raise GGUFFormatError(f"unknown metadata value type {value_type}")
        element, count = self.u32(), self.u64()
        if element == STRING:
            self.skip_strings(count)
        elif element in _SCALARS:
            self.pos += struct.calcsize(_SCALARS[element]) * count
        else:
            raise GGUFFormatError(f"an array of value type {element} is not supported")
        return None, count


def _read_metadata(path: Path) -> tuple[int, int, list[_Entry], int, int, int]:
    """(version, tensor count, metadata entries, end of the tensor table, alignment, start of the tensor data)."""
    with path.open("rb") as handle:
        head = handle.read(24)
        if len(head) < 24 or head[:4] != MAGIC:
            raise GGUFFormatError(f"{path.name} is not a GGUF file")
        version, tensors, count = struct.unpack_from("<IQQ", head, 4)
        if version not in (2, 3) or count > 1_000_000 or tensors > 1_000_000:
            raise GGUFFormatError(f"{path.name}: GGUF version {version} (or a big-endian file) is not supported")
    import mmap
    with path.open("rb") as handle, mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ) as mapped:
        view = memoryview(mapped)
        try:
            cursor = _Cursor(view)
            cursor.pos = 24
            entries = []
            for _ in range(count):
                start = cursor.pos
                key = cursor.string()
                value_type = cursor.u32()
                value, n = cursor.value(value_type)
                entries.append(_Entry(key, start, cursor.pos, value_type, n, value))
            for _ in range(tensors):  # name, dimensions, type, offset
                cursor.string()
                dims = cursor.u32()
                cursor.pos += 8 * dims + 4 + 8
            table_end = cursor.pos
            if table_end > len(view):
                raise GGUFFormatError("the file ends inside its tensor table")
        finally:
            view.release()
    alignment = next((int(e.value) for e in entries if e.key == "general.alignment" and isinstance(e.value, int)),
                     DEFAULT_ALIGNMENT)
    data_start = -(-table_end // alignment) * alignment
    return version, tensors, entries, table_end, alignment, data_start


def _string(text: str) -> bytes:
    raw = text.encode("utf-8")
    return struct.pack("<Q", len(raw)) + raw


def write_weights_only(source: Path, target: Path) -> int:
    """Write `target`: `source` without the tokenizer's metadata arrays, with `<arch>.vocab_size` set from the token
    count where the file lacks it. The number of metadata entries left out."""
    version, tensors, entries, table_end, alignment, data_start = _read_metadata(source)
    arch = next((e.value for e in entries if e.key == "general.architecture" and isinstance(e.value, str)), None)
    if arch is None:
        raise GGUFFormatError(f"{source.name} names no architecture")
    tokens = next((e.count for e in entries if e.key == DROPPED_PREFIX + "tokens"), None)
    dropped = [e for e in entries if e.key.startswith(DROPPED_PREFIX) and e.value_type == ARRAY]
    kept = [e for e in entries if e not in dropped]
    extra = b""
    if tokens is not None and not any(e.key == f"{arch}.vocab_size" for e in entries):
        extra = _string(f"{arch}.vocab_size") + struct.pack("<IQ", UINT64, tokens)
    with source.open("rb") as src, target.open("wb") as out:
        out.write(MAGIC + struct.pack("<IQQ", version, tensors, len(kept) + bool(extra)))
        for entry in kept:
            src.seek(entry.start)
            out.write(src.read(entry.end - entry.start))
        out.write(extra)
        src.seek(entries[-1].end if entries else 24)
        out.write(src.read(table_end - src.tell()))  # the tensor table: offsets are relative to the data
        out.write(b"\0" * (-out.tell() % alignment))
        src.seek(data_start)
        shutil.copyfileobj(src, out, length=16 << 20)
    return len(dropped)
