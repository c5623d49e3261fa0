"""How tests and benchmarks start a redis-server of their own: a free port on 127.0.0.1 (or another
loopback address such as ::1), no persistence, and any further configuration a test needs (a replica,
a memory limit, a password)."""

from __future__ import annotations

import signal
import socket
import subprocess
import time
from pathlib import Path


def free_port(host: str = "127.0.0.1") -> int:
    with socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET) as probe:
        probe.bind((host, 0))
        return probe.getsockname()[1]


def redis_server_command(binary: str, port: int, folder: Path, host: str = "127.0.0.1") -> list[str]:
    """The command line of a redis-server on ``port`` of ``host``, in the foreground, that writes
    nothing to disk (its working folder is ``folder``)."""
    return [
        binary,
        "--port",
        str(port),
        "--bind",
        host,
        "--dir",
        str(folder),
        "--save",
        "",
        "--appendonly",
        "no",
        "--daemonize",
        "no",
        "--loglevel",
        "warning",
    ]


class RedisProcess:
    """A redis-server of its own on a free port of ``host`` (no persistence; ``options``: more of its
    command line, e.g. ``("--maxmemory", "1")``; ``password``: its ``requirepass``), that a fault test
    can freeze (SIGSTOP), thaw (SIGCONT) or kill; ``start`` returns False where it could not start."""

    def __init__(
        self, binary: str, folder: Path, *, host: str = "127.0.0.1", options: tuple[str, ...] = (), password: str = ""
    ) -> None:
        self.binary = binary
        self.folder = folder
        self.host = host
        self.options = options
        self.password = password
        self.port = 0
        self.process: subprocess.Popen | None = None

    @property
    def url(self) -> str:
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"redis://{f':{self.password}@' if self.password else ''}{host}:{self.port}/0"

    def start(self) -> bool:
        import redis

        for _attempt in range(3):  # the free port may be taken between probe and start
            self.port = free_port(self.host)
            command = redis_server_command(self.binary, self.port, self.folder, self.host) + list(self.options)
            if self.password:
                command += ["--requirepass", self.password]
            with open(self.folder / "redis.log", "ab") as log:
                self.process = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT)
            client = redis.Redis.from_url(self.url, socket_connect_timeout=1)
            try:
                deadline = time.monotonic() + 10
                while self.process.poll() is None and time.monotonic() < deadline:
                    try:
                        client.ping()
                        return True
                    except redis.ConnectionError:
                        time.sleep(0.05)
            finally:
                client.close()
            self.kill()
        return False

    def freeze(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(signal.SIGSTOP)

    def thaw(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(signal.SIGCONT)

    def kill(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(signal.SIGCONT)
            self.process.kill()
            self.process.wait(10)

    def __enter__(self) -> RedisProcess:
        return self

    def __exit__(self, *exc: object) -> None:
        self.kill()
