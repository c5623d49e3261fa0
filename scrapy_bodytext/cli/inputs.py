"""Which files an ``extract`` run reads, and the URL each page was saved from: paths as given, folders
searched recursively for the file names a glob matches, and lists of paths, one per line; a page's URL
from a URL list (``PATH<TAB>URL`` lines) or a base URL its path below its folder is joined to.
Whatever cannot be read keeps its place in the order, with the reason, so that every input gets an
outcome."""

from __future__ import annotations

import fnmatch
import os
import sys
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from urllib.parse import quote, urljoin, urlsplit

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
    url: str | None = None  # the URL the page was saved from, when known
    below: str = ""  # its path below the folder it was found in (a file given by itself: its name)


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


def check_url(url: str, option: str) -> str:
    """``url`` when it is an absolute http(s) or file URL, else a usage error naming ``option``."""
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https", "file") or (parts.scheme != "file" and not parts.hostname):
        raise UsageError(f"{option}: expected an absolute http(s) or file URL, got {url!r}")
    return url


def read_urls(name: str) -> dict[str, str]:
    """The URL list ``name``: one ``PATH<TAB>URL`` line per page (blank lines and ``#`` comments left
    out), each path as the run reaches the file (``site/tag/a.html`` for a file of the folder
    ``site``), normalized."""
    try:
        with open(name, encoding="utf-8") as listing:
            lines = listing.read().splitlines()
    except OSError as exc:
        raise UsageError(f"--url-list {name}: {exc.strerror}") from None
    except UnicodeDecodeError:
        raise UsageError(f"--url-list {name}: not UTF-8 text") from None
    urls = {}
    for number, line in enumerate(lines, 1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        path, tab, url = line.rpartition("\t")
        if not tab or not path.strip():
            raise UsageError(f"--url-list {name}:{number}: expected PATH<TAB>URL, got {line!r}")
        urls[os.path.normpath(path.strip())] = check_url(url.strip(), f"--url-list {name}:{number}")
    return urls


def gather(
    names: Sequence[str],
    input_file: str | None,
    globs: Sequence[str],
    *,
    base_url: str | None = None,
    urls: Mapping[str, str] | None = None,
) -> list[Source]:
    """The inputs of a run, in order: the names given, then those listed in ``input_file``; folders
    are replaced by the files under them whose names match one of ``globs``. Each file's URL is the
    one ``urls`` lists for its path, else ``base_url`` joined with its path below its folder (a file
    given by itself: its name)."""
    if input_file == STDIN and STDIN in names:
        raise UsageError("standard input cannot be both the --input-file list and a page (-)")
    sources = [source for name in names for source in _expand(name, globs)]
    if input_file is not None:
        listed = read_list(input_file)
        if not listed:
            sources.append(Source(input_file, "lists no input"))
        sources.extend(source for name in listed for source in _expand(name, globs))
    if base_url is None and not urls:
        return sources
    return [_with_url(source, base_url, urls or {}) for source in sources]


def _with_url(source: Source, base_url: str | None, urls: Mapping[str, str]) -> Source:
    if source.problem is not None or source.name == STDIN:
        return source
    url = urls.get(os.path.normpath(source.name))
    if url is None and base_url is not None:
        below = (source.below or os.path.basename(source.name)).replace(os.sep, "/")
        url = urljoin(base_url if base_url.endswith("/") else base_url + "/", quote(below))
    return replace(source, url=url)


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
            below = os.path.relpath(path, folder)
            if matches(below, globs):
                yield Source(path, below=below)
    for error in errors:  # an unreadable top folder
        yield Source(error.filename or folder, error.strerror or str(error))


def matches(relative: str, globs: Iterable[str]) -> bool:
    """Whether a file matches a glob, case-insensitively: on its name, or on its path below the folder
    when the glob holds a ``/``."""
    relative = relative.replace(os.sep, "/").lower()
    name = relative.rpartition("/")[2]
    return any(fnmatch.fnmatchcase(relative if "/" in glob else name, glob.lower()) for glob in globs)
