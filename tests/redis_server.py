"""How tests and benchmarks start a redis-server of their own: a free port on 127.0.0.1, no persistence."""

from __future__ import annotations

import socket
from pathlib import Path


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def redis_server_command(binary: str, port: int, folder: Path) -> list[str]:
    """The command line of a redis-server on ``port`` of 127.0.0.1, in the foreground, that writes
    nothing to disk (its working folder is ``folder``)."""
    return [
        binary,
        "--port",
        str(port),
        "--bind",
        "127.0.0.1",
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
