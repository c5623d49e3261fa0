"""Web archives (WARC and ARC, plain or gzipped) read record by record, past damage: a damaged record
costs only itself."""

from .entries import ArchiveEntry, iter_archive, looks_like_archive
from .records import WarcUnavailable

__all__ = ["ArchiveEntry", "WarcUnavailable", "iter_archive", "looks_like_archive"]
