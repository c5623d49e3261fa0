"""A real HTTP server on 127.0.0.1 for crawl tests: stdlib ThreadingHTTPServer in a thread, port 0."""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping
from email.message import Message
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import urlsplit

SITE = Path(__file__).parent / "site"

#: a served page: its bytes and its Content-Type header (None: no header at all)
Page = tuple[bytes, str | None]
#: called as ``resolve(target)`` (the requested path and query): the page to serve, or None for a 404
Resolver = Callable[[str], Page | None]
#: called as ``on_request(target, headers)`` (target: the requested path and query) in the request's
#: thread before the answer (may block to delay it)
RequestHook = Callable[[str, Message], None]


class SiteServer:
    """Serves ``pages`` (path -> (body, content type)), or what ``resolve`` finds for a request;
    unknown paths get a 404 page. ``on_request`` sees each request first (to record it, delay it, or
    act on the crawl at a given page)."""

    def __init__(
        self, pages: Mapping[str, Page], on_request: RequestHook | None = None, resolve: Resolver | None = None
    ):
        self.pages = dict(pages)
        pages_ref = self.pages
        find = resolve or (lambda target: pages_ref.get(urlsplit(target).path))

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_GET(self) -> None:  # noqa: N802 - http.server's naming
                if on_request is not None:
                    on_request(self.path, self.headers)
                found = find(self.path)
                body, content_type = (
                    found if found is not None else (b"<html><body>Not found</body></html>", "text/html")
                )
                self.send_response(200 if found is not None else 404)
                if content_type is not None:
                    self.send_header("Content-Type", content_type)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, format: str, *args: object) -> None:  # noqa: A002 - keep test output quiet
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.thread = threading.Thread(target=self.server.serve_forever, name="site-server", daemon=True)

    @property
    def base_url(self) -> str:
        host, port = self.server.server_address[:2]
        return f"http://{host}:{port}"

    def url(self, path: str) -> str:
        return self.base_url + path

    def __enter__(self) -> SiteServer:
        self.thread.start()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.server.shutdown()
        self.server.server_close()
        self.thread.join(5)


def site_pages(folder: Path = SITE) -> dict[str, Page]:
    """The hand-written test site: every ``*.html`` file, declared as text/html (no charset: each
    page declares its own in a <meta>, as many real sites do)."""
    return {f"/{path.name}": (path.read_bytes(), "text/html") for path in sorted(folder.glob("*.html"))}


class AtRequest:
    """An ``on_request`` hook that runs each action once, when the server has answered that many
    requests (an event of the crawl, not a clock); ``done`` is set when the last has run."""

    def __init__(self, actions: Mapping[int, Callable[[], object]]) -> None:
        self.actions = dict(actions)
        self.count = 0
        self.lock = threading.Lock()
        self.done = threading.Event()
        if not self.actions:
            self.done.set()

    def __call__(self, target: str, headers: object) -> None:
        with self.lock:
            self.count += 1
            action = self.actions.pop(self.count, None)
            if not self.actions:
                self.done.set()
        if action is not None:
            action()
