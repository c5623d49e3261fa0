"""``scrapy-bodytext extract``: main text of HTML files (gzipped or not) and stdin; web archives go to
``archive``."""

from __future__ import annotations

import argparse
import io
import json
import sys
import zlib
from contextlib import ExitStack
from typing import BinaryIO, TextIO

from ..api import extract_with_config
from ..result import ExtractionResult
from ..warc import GZIP_MAGIC, looks_like_archive
from . import FAILED, OK
from .options import build_config, parse_options


def run_extract(args: argparse.Namespace) -> int:
    config = build_config(
        args.extractor, threshold=args.threshold, time_limit=None,
        options=parse_options(args.option, [args.extractor]),
    )
    status = OK
    with ExitStack() as stack:
        out: TextIO = sys.stdout
        if args.output:
            try:
                out = stack.enter_context(open(args.output, "w", encoding="utf-8"))
            except OSError as exc:
                print(f"scrapy-bodytext extract: cannot write {args.output}: {exc.strerror}", file=sys.stderr)
                return FAILED
        several = len(args.inputs) > 1
        for name in args.inputs:
            try:
                stream = sys.stdin.buffer if name == "-" else stack.enter_context(open(name, "rb"))
            except OSError as exc:
                print(f"scrapy-bodytext extract: {name}: {exc.strerror}", file=sys.stderr)
                status = FAILED
                continue
            stream = _peekable(stream)
            if looks_like_archive(name, stream.peek(512)[:512]):
                from .archive import extract_archive

                status = max(status, extract_archive(stream, name, config, out))
            else:
                try:
                    body = read_page(stream, config.max_body_size)
                except zlib.error as exc:
                    print(f"scrapy-bodytext extract: {name}: damaged gzip data ({exc})", file=sys.stderr)
                    status = FAILED
                    continue
                result = extract_with_config(body, config, url=args.url, encoding=args.encoding)
                write_page(result, name, args, out, several)
    return status


def read_page(stream: BinaryIO, limit: int) -> bytes:
    """The page bytes, gunzipped when compressed; at most ``limit + 1`` bytes are kept, enough for
    ``extract`` to report a page over the size limit without holding all of it."""
    data = stream.read(limit + 1)
    if data[:2] == GZIP_MAGIC:
        data = zlib.decompressobj(16 + zlib.MAX_WBITS).decompress(data, limit + 1)
    return data


def _peekable(stream: BinaryIO) -> BinaryIO:
    return stream if hasattr(stream, "peek") else io.BufferedReader(stream)


def write_page(result: ExtractionResult, name: str, args: argparse.Namespace, out: TextIO, several: bool) -> None:
    if args.json:
        out.write(json.dumps({"path": name, "url": args.url, **result.as_dict()}, ensure_ascii=False) + "\n")
        return
    if several:
        out.write(f"==> {name} <==\n")
    if result.text:
        out.write(result.text + "\n")
    else:
        detail = f": {result.detail}" if result.detail else ""
        print(f"scrapy-bodytext extract: {name}: no main text ({result.reason.value}{detail})", file=sys.stderr)
