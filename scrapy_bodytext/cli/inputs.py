"""Which files an ``extract`` run reads: paths as given, folders searched recursively for the file names
a glob matches, and lists of paths, one per line. Whatever cannot be read keeps its place in the
order, with the reason, so that every input gets an outcome."""

from __future__ import annotations

import fnmatch
import os
import sys
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass

from .options import UsageError

#: the name that stands for standard input
STDIN = "-"
#: file names taken from a folder when no --glob is given: HTML pages, gzipped or not
DEFAULT_GLOBS = (
    "*.html",
    "*.htm",
    "*.xhtml",
    "*.shtml",
    "*.html.gz",
    "*.htm.gz",
    "*.xhtml.gz",
    "*.shtml.gz",
)


@dataclass(frozen=True)
class Source:
    """One input in output order: a path (or ``-``), or why a path named by the user gave nothing."""

    name: str
    problem: str | None = None


def read_list(name: str) -> list[str]:
    """The paths listed in the file ``name`` (``-``: standard input), one per line, blank lines left out."""
    try:
        if name == STDIN:
            data = sys.stdin.buffer.read()
        else:
            with open(name, "rb") as listing:
                data = listing.read()
    except OSError as exc:
        raise UsageError(f"--input-file {name}: {exc.strerror}") from None
    return [os.fsdecode(line) for line in data.splitlines() if line.strip()]


def gather(names: Sequence[str], input_file: str | None, globs: Sequence[str]) -> list[Source]:
    """The inputs of a run, in order: the names given, then those listed in ``input_file``; folders
    are replaced by the files under them whose names match one of ``globs``."""
    if input_file == STDIN and STDIN in names:
        raise UsageError("standard input cannot be both the --input-file list and a page (-)")
    sources = [source for name in names for source in _expand(name, globs)]
    if input_file is not None:
        listed = read_list(input_file)
        if not listed:
            sources.append(Source(input_file, "lists no input"))
        sources.extend(source for name in listed for source in _expand(name, globs))
    return sources


def _expand(name: str, globs: Sequence[str]) -> Iterator[Source]:
    if name == STDIN or not os.path.isdir(name):
        yield Source(name)  # a file, stdin, or a missing path (reported when it is opened)
        return
    found = False
    for source in walk(name, globs):
        found = True
        yield source
    if not found:
        yield Source(name, f"no file matches {' '.join(globs)}")


def walk(folder: str, globs: Sequence[str]) -> Iterator[Source]:
    """Files under ``folder`` (recursively, in name order) that match one of ``globs``, and the
    sub-folders that could not be read. Symbolic links to folders are not followed."""
    errors: list[OSError] = []
    for root, dirs, files in os.walk(folder, onerror=errors.append):
        for error in errors:
            yield Source(error.filename or root, error.strerror or str(error))
        errors.clear()
        dirs.sort()
        for file in sorted(files):
            path = os.path.join(root, file)
            if matches(os.path.relpath(path, folder), globs):
                yield Source(path)
    for error in errors:  # an unreadable top folder
        yield Source(error.filename or folder, error.strerror or str(error))


def matches(relative: str, globs: Iterable[str]) -> bool:
    """Whether a file matches a glob, case-insensitively: on its name, or on its path below the folder
    when the glob holds a ``/``."""
    relative = relative.replace(os.sep, "/").lower()
    name = relative.rpartition("/")[2]
    return any(fnmatch.fnmatchcase(relative if "/" in glob else name, glob.lower()) for glob in globs)
