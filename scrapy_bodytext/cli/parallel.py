"""Inputs handed to worker processes and their outcomes handed back in input order, a bounded number
of inputs ahead of the one being written."""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Future
from typing import TypeVar

from ..workers.cpus import usable_cpus

T = TypeVar("T")
#: inputs started per worker ahead of the one whose outcome is awaited: enough to keep every worker
#: busy while one slow page holds back the output, few enough to keep finished outcomes small
AHEAD_PER_WORKER = 8
#: inputs per worker process below which the default runs fewer workers: starting one (about a second
#: with its imports) costs what extracting some tens of pages does
INPUTS_PER_WORKER = 50


def worker_count(requested: int | None, inputs: int) -> int:
    """Worker processes for ``inputs`` inputs, never more than there are inputs; by default the usable
    CPUs, fewer for a small run. 1 means the work runs in this process."""
    if requested is None:
        requested = min(usable_cpus().count, inputs // INPUTS_PER_WORKER)
    return max(1, min(requested, inputs))


def in_order(
    items: Iterable[T],
    start: Callable[[T], Future | None],
    workers: int,
) -> Iterator[tuple[T, Future | None]]:
    """Each item with the work ``start`` began for it (``None``: nothing to run ahead), in the order
    of ``items``, starting at most ``AHEAD_PER_WORKER * workers`` items before they are handed out."""
    window = AHEAD_PER_WORKER * workers
    pending: deque[tuple[T, Future | None]] = deque()
    for item in items:
        pending.append((item, start(item)))
        if len(pending) >= window:
            yield pending.popleft()
    while pending:
        yield pending.popleft()
