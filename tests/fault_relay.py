"""A real TCP relay on 127.0.0.1 in front of a server (a redis-server of the tests), for fault tests and
the fault benchmark: it forwards both ways and closes the connection on a share of the chunks the
client sends, as a flaky network or proxy does. Seeded: the same traffic meets the same faults."""

from __future__ import annotations

import random
import socket
import threading
from collections.abc import Callable


class FaultRelay:
    """Listens on a free port of 127.0.0.1 and relays every connection to ``upstream`` (host, port);
    a chunk the client sends is, with probability ``drop``, never delivered: both sides of its
    connection are closed instead. ``dropped`` and ``chunks`` count what happened."""

    def __init__(
        self, upstream: tuple[str, int], drop: float = 0.0, seed: int = 0, on_chunk: Callable[[int], None] | None = None
    ) -> None:
        self.upstream = upstream
        self.on_chunk = on_chunk  # called with the count of the client's chunks so far (to act on traffic)
        self.drop = drop
        self.chunks = 0
        self.dropped = 0
        self._rng = random.Random(seed)
        self._lock = threading.Lock()
        self._sockets: set[socket.socket] = set()
        self._listener = socket.socket()
        self._listener.bind(("127.0.0.1", 0))
        self._listener.listen(64)
        self.port = self._listener.getsockname()[1]
        self._closed = False
        threading.Thread(target=self._accept, name="fault-relay", daemon=True).start()

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def _accept(self) -> None:
        while not self._closed:
            try:
                client, _ = self._listener.accept()
            except OSError:
                return
            try:
                server = socket.create_connection(self.upstream, timeout=5)
                server.settimeout(None)
            except OSError:
                client.close()
                continue
            with self._lock:
                self._sockets.update((client, server))
            threading.Thread(target=self._pump, args=(client, server, True), daemon=True).start()
            threading.Thread(target=self._pump, args=(server, client, False), daemon=True).start()

    def _pump(self, source: socket.socket, target: socket.socket, from_client: bool) -> None:
        try:
            while True:
                chunk = source.recv(65536)
                if not chunk:
                    break
                if from_client and self._drops():
                    break
                target.sendall(chunk)
        except OSError:
            pass
        finally:
            self._hang_up(source, target)

    def _drops(self) -> bool:
        with self._lock:
            self.chunks += 1
            count = self.chunks
            dropped = self._rng.random() < self.drop
            self.dropped += dropped
        if self.on_chunk is not None:
            self.on_chunk(count)
        return dropped

    def _hang_up(self, *sockets: socket.socket) -> None:
        for sock in sockets:
            try:
                sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            sock.close()
            with self._lock:
                self._sockets.discard(sock)

    def close(self) -> None:
        self._closed = True
        self._listener.close()
        with self._lock:
            open_sockets = list(self._sockets)
        self._hang_up(*open_sockets)

    def __enter__(self) -> FaultRelay:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
