"""Compression that can be shared between mails: raw-deflate chunks that join into one
stream (RFC 1951 blocks ending in a full flush, and one final empty block).

A round's Auswertungen all carry the same large parts (the Partien, the round's table,
the chart): each is compressed once (:class:`Chunked`), and each mail's compressed form
is its own small parts compressed and the shared chunks joined in between
(:func:`pack`), so storing the round costs compression in proportion to the number of
players, not to its square. No database and no mail knowledge here.
"""

from __future__ import annotations

import zlib
from typing import Iterable

#: zlib level of the chunks (a shared chunk is compressed once per round)
LEVEL = 6
#: the empty final block that ends a stream of chunks
END = zlib.compressobj(LEVEL, zlib.DEFLATED, -15).flush(zlib.Z_FINISH)


def chunk(data: bytes, level: int = LEVEL) -> bytes:
    """``data`` as raw-deflate blocks that end byte-aligned with a full flush (no final
    block, no reference to what comes before or after): joinable with other chunks."""
    c = zlib.compressobj(level, zlib.DEFLATED, -15)
    return c.compress(data) + c.flush(zlib.Z_FULL_FLUSH)


class Chunked(bytes):
    """Bytes with their :func:`chunk` (``.chunk``), compressed once where they are made."""

    chunk: bytes

    def __new__(cls, data: bytes) -> "Chunked":
        self = super().__new__(cls, data)
        self.chunk = chunk(data)
        return self


class Packed(bytes):
    """Bytes with their compressed form (``.packed``: a raw-deflate stream, see
    :func:`unpack`) made alongside them."""

    packed: bytes


def pack(parts: Iterable[bytes]) -> Packed:
    """The bytes of ``parts`` joined, with ``.packed``: the :class:`Chunked` parts' chunks
    as they are, every run of other parts compressed here, one stream."""
    raw: list[bytes] = []
    packed: list[bytes] = []
    run: list[bytes] = []
    for part in parts:
        raw.append(part)
        if isinstance(part, Chunked):
            if run:
                packed.append(chunk(b"".join(run)))
                run = []
            packed.append(part.chunk)
        else:
            run.append(part)
    if run:
        packed.append(chunk(b"".join(run)))
    out = Packed(b"".join(raw))
    out.packed = b"".join(packed) + END
    return out


def unpack(stream: bytes) -> bytes:
    """The bytes of a :func:`pack` stream."""
    return zlib.decompress(stream, -15)
