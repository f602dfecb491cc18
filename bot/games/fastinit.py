"""Cheaper construction of frozen dataclasses on hot paths (issue 35: the best turn of a
small Typ-Dom rack builds a handful of them, and each ``__init__`` of a frozen dataclass
calls ``object.__setattr__`` once per field: 7,000-14,000 machine instructions for one
object, measured by callgrind on CPython 3.11).

:func:`frozen_maker` writes, once per class, a function that makes the same object
without the dataclass ``__init__``: with ``__slots__`` through the fields' slot
descriptors, else into the instance's ``__dict__``. The object is equal to the one
``cls(...)`` makes, field by field, and stays frozen (``__setattr__`` is the class's).
"""

from __future__ import annotations

import dataclasses
from typing import Any, Callable

__all__ = ["frozen_maker"]


def frozen_maker(cls: type, n: int) -> Callable[..., Any]:
    """A function ``make(v1, ..., vn)`` returning an instance of the frozen dataclass
    ``cls`` equal to ``cls(v1, ..., vn)``: the first ``n`` fields given by position,
    every other field at its default.

    Raises TypeError when ``cls`` is not a frozen dataclass, has a ``__post_init__``, a
    field outside ``__init__``, a default factory, or a field after the first ``n``
    without a default (then ``cls(...)`` itself would need more than the maker does)."""
    params = getattr(cls, "__dataclass_params__", None)
    if params is None or not params.frozen:
        raise TypeError(f"{cls.__name__} is not a frozen dataclass")
    if hasattr(cls, "__post_init__"):
        raise TypeError(f"{cls.__name__} has a __post_init__")
    fields = dataclasses.fields(cls)
    if not 0 <= n <= len(fields):
        raise TypeError(f"{cls.__name__} has {len(fields)} fields, not {n}")
    ns: dict[str, Any] = {"_new": object.__new__, "_cls": cls}
    slots = "__dict__" not in dir(cls) and hasattr(cls, "__slots__")
    names = [f.name for f in fields[:n]]
    lines = [f"def make({', '.join(names)}):", "    o = _new(_cls)"]
    if not slots:
        lines.append("    d = o.__dict__")
    for i, f in enumerate(fields):
        if not f.init or f.default_factory is not dataclasses.MISSING:
            raise TypeError(f"{cls.__name__}.{f.name}: not a plain field")
        if i < n:
            value = f.name
        elif f.default is dataclasses.MISSING:
            raise TypeError(f"{cls.__name__}.{f.name} has no default")
        else:
            ns[f"_d{i}"] = f.default
            value = f"_d{i}"
        if slots:
            desc = getattr(cls, f.name)
            if type(desc).__name__ != "member_descriptor":
                raise TypeError(f"{cls.__name__}.{f.name}: no slot")
            ns[f"_s{i}"] = desc.__set__
            lines.append(f"    _s{i}(o, {value})")
        else:
            lines.append(f"    d[{f.name!r}] = {value}")
    lines.append("    return o")
    exec("\n".join(lines), ns)  # (generated from the dataclass's own fields, nothing else)
    make = ns["make"]
    make.__doc__ = f"``{cls.__name__}({', '.join(names)})`` without the dataclass __init__ (fastinit)."
    return make
