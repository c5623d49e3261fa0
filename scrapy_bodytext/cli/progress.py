"""A one-line progress display on stderr, shown only when stderr is a terminal."""

from __future__ import annotations

import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager


class Progress:
    """Rewrites one status line at most a few times per second. Picklable, so a worker process can
    report on the terminal it inherited."""

    def __init__(self, label: str, interval: float = 0.25):
        self.label = label
        self.interval = interval
        self._last = 0.0

    def show(self, text: str, *, force: bool = False) -> None:
        now = time.monotonic()
        if not force and now - self._last < self.interval:
            return
        self._last = now
        sys.stderr.write(f"\r\x1b[K{self.label}: {text}")
        sys.stderr.flush()

    def __call__(self, done: int, total: int) -> None:
        """Page-count form, used by the evaluation runs."""
        share = f" ({100 * done / total:.0f}%)" if total else ""
        self.show(f"{done}/{total or '?'} pages{share}", force=done == total)

    def clear(self) -> None:
        sys.stderr.write("\r\x1b[K")
        sys.stderr.flush()


@contextmanager
def progress_display(label: str, *, enabled: bool = True) -> Iterator[Progress | None]:
    """A ``Progress`` when ``enabled`` and stderr is a terminal (``None`` otherwise), its line cleared
    at the end."""
    progress = Progress(label) if enabled and sys.stderr.isatty() else None
    try:
        yield progress
    finally:
        if progress is not None:
            progress.clear()
