"""How jobs and replies travel between the crawl's process and a worker process over a socket.

A job is one frame: a small pickle of the function and its arguments, with every large ``bytes``
argument (the page's body) sent beside it raw, as a protocol-5 out-of-band buffer: the body is
neither copied into the pickle nor out of it, and the worker gets the very ``bytes`` it read from
the socket. A reply is one length-prefixed pickle of ``(ok, value)``; an empty reply means "ready".
The worker's side (``worker_main``) lives here too, so both ends of the format sit together.
"""

from __future__ import annotations

import pickle
import signal
import socket
import struct
from collections.abc import Callable, Iterable
from typing import Any, BinaryIO

#: job frame header: length of the pickle, number of out-of-band buffers (each length follows as "!Q")
JOB_HEADER = struct.Struct("!IH")
BUFFER_LENGTH = struct.Struct("!Q")
#: reply frame header: length of the pickle (0: the worker is ready)
REPLY_HEADER = struct.Struct("!Q")
#: ``bytes`` arguments at least this long travel out of band (smaller ones cost less inside the pickle)
OUT_OF_BAND_MIN = 4096
#: most out-of-band buffers in one job (the header field's range)
MAX_BUFFERS = 0xFFFF


def encode_job(fn: Callable[..., Any], args: tuple) -> list[memoryview]:
    """The buffers that make up a job's frame, ready for ``socket.sendmsg`` (raises what pickling
    raises for an unpicklable job)."""
    buffers: list[pickle.PickleBuffer] = []
    wrapped = tuple(
        pickle.PickleBuffer(arg) if type(arg) is bytes and len(arg) >= OUT_OF_BAND_MIN else arg for arg in args
    )
    meta = pickle.dumps((fn, wrapped), protocol=5, buffer_callback=buffers.append)
    if len(buffers) > MAX_BUFFERS:
        raise ValueError(f"a job may carry at most {MAX_BUFFERS} large bytes arguments")
    raws = [buffer.raw() for buffer in buffers]
    header = JOB_HEADER.pack(len(meta), len(raws)) + b"".join(BUFFER_LENGTH.pack(raw.nbytes) for raw in raws)
    return [memoryview(header), memoryview(meta), *raws]


def read_job(stream: BinaryIO) -> tuple[bytes, list[bytes]] | None:
    """The next job frame from a worker's socket stream, as its pickle and its out-of-band buffers
    (``load_job`` turns them into the job); None when the other end closed the socket."""
    header = stream.read(JOB_HEADER.size)
    if len(header) < JOB_HEADER.size:
        return None
    meta_length, count = JOB_HEADER.unpack(header)
    lengths = [BUFFER_LENGTH.unpack(stream.read(BUFFER_LENGTH.size))[0] for _ in range(count)]
    meta = stream.read(meta_length)
    buffers = [stream.read(length) for length in lengths]
    if len(meta) < meta_length or any(len(buffer) < length for buffer, length in zip(buffers, lengths)):
        return None  # cut short: the other end is gone
    return meta, buffers


def load_job(meta: bytes, buffers: list[bytes]) -> tuple[Callable[..., Any], tuple]:
    """The function and arguments of a job frame; each large ``bytes`` argument is the buffer itself."""
    return pickle.loads(meta, buffers=buffers)


def encode_reply(ok: bool, value: Any) -> bytes:
    """A reply frame; a value (result or exception) that cannot be pickled is replaced by a
    ``RuntimeError`` describing it, so the job still gets an answer."""
    try:
        payload = pickle.dumps((ok, value), protocol=pickle.HIGHEST_PROTOCOL)
    except Exception as exc:  # noqa: BLE001 - e.g. an exception holding an open file
        payload = pickle.dumps(
            (
                False,
                RuntimeError(
                    f"the job's {'result' if ok else 'exception'} could not be sent back: {type(exc).__name__}: {exc}"
                ),
            )
        )
    return REPLY_HEADER.pack(len(payload)) + payload


READY = REPLY_HEADER.pack(0)


def take_replies(inbox: bytearray) -> Iterable[bytes]:
    """Remove each complete reply frame from the front of ``inbox`` and yield its payload (b"" for
    the ready signal); an incomplete frame stays for more bytes."""
    size = REPLY_HEADER.size
    while len(inbox) >= size:
        (length,) = REPLY_HEADER.unpack_from(inbox)
        if len(inbox) < size + length:
            return
        payload = bytes(inbox[size : size + length])
        del inbox[: size + length]
        yield payload


def decode_reply(payload: bytes) -> tuple[bool, Any]:
    """``(ok, value)`` of a reply; a reply that cannot be unpickled here becomes a failure."""
    try:
        return pickle.loads(payload)
    except Exception as exc:  # noqa: BLE001 - e.g. an exception class whose __init__ needs other arguments
        return False, RuntimeError(f"the worker's reply could not be read: {type(exc).__name__}: {exc}")


def worker_main(connection: socket.socket) -> None:
    """Loop of a worker process: say it is ready, then run each job received and send back its
    reply, until the crawl's process closes the socket."""
    # Ctrl-C reaches the whole process group: the crawl's process decides, its pages in flight finish
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    with connection, connection.makefile("rb") as stream:
        try:
            connection.sendall(READY)
        except OSError:  # the pool was shut down while this worker started
            return
        while True:
            try:
                job = read_job(stream)
            except (OSError, struct.error):
                return
            if job is None:
                return
            try:
                fn, args = load_job(*job)
                reply = encode_reply(True, fn(*args))
            except Exception as exc:  # noqa: BLE001 - reported to the caller, the worker goes on
                reply = encode_reply(False, exc)
            try:
                connection.sendall(reply)
            except OSError:
                return
