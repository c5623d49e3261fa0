"""Checks of a method's ``Options``, with one wording for every method: ``NAME must be WHAT, got VALUE``.

Each method's frozen ``Options`` dataclass calls these from ``__post_init__``; a bad value raises
``ValueError`` when the options are built, long before any page is read.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import Any


def _fail(name: str, what: str, value: Any) -> None:
    raise ValueError(f"{name} must be {what}, got {value!r}")


def check_flag(options: object, *names: str) -> None:
    """Each of ``names`` is True or False."""
    for name in names:
        value = getattr(options, name)
        if not isinstance(value, bool):
            _fail(name, "True or False", value)


def check_number(
    options: object,
    *names: str,
    minimum: float | None = None,
    maximum: float | None = None,
    positive: bool = False,
    integer: bool = False,
    optional: bool = False,
) -> None:
    """Each of ``names`` is a finite number (an integer with ``integer``) within the bounds given
    (``positive``: above 0); ``optional``: ``None`` is accepted too."""
    kind = "an integer" if integer else "a number"
    bounds = []
    if positive:
        bounds.append("> 0")
    if minimum is not None:
        bounds.append(f">= {minimum:g}")
    if maximum is not None:
        bounds.append(f"<= {maximum:g}")
    what = f"{kind} {' and '.join(bounds)}".strip() + (" or None" if optional else "")
    for name in names:
        value = getattr(options, name)
        if value is None and optional:
            continue
        if isinstance(value, bool) or not isinstance(value, int if integer else (int, float)):
            _fail(name, what, value)
        if not math.isfinite(value) or (positive and value <= 0):
            _fail(name, what, value)
        if (minimum is not None and value < minimum) or (maximum is not None and value > maximum):
            _fail(name, what, value)


def check_choice(options: object, name: str, choices: Iterable[str], *, optional: bool = False) -> None:
    """``name`` is one of ``choices`` (or ``None`` with ``optional``)."""
    value = getattr(options, name)
    if value is None and optional:
        return
    allowed = sorted(choices)
    if not isinstance(value, str) or value not in allowed:
        _fail(name, f"one of {', '.join(allowed)}" + (" or None" if optional else ""), value)
