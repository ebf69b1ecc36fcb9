"""Server processes on loopback for benchmarks (and the test session): a free port, a wait, a clean stop.

    with moto_server() as endpoint:      # moto's S3 server behind an OSS-like signature check
        ...
    with moto_front() as front:          # the same, with the front's request counts at hand
        front.endpoint, front.requests
"""

from __future__ import annotations

import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from importlib.util import find_spec

from engram_bench.oss_front import OssFront
from engram_core.core.errors import ConfigurationError, StoreError

START_TIMEOUT_S = 30.0


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def wait_listening(port: int, process: subprocess.Popen, what: str, timeout: float = START_TIMEOUT_S) -> None:
    """Until something accepts connections on the port; StoreError when the process dies or time runs out."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise StoreError(f"{what} exited with status {process.returncode} before it listened")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                return
        except OSError:
            time.sleep(0.05)
    raise StoreError(f"{what} did not listen on port {port} within {timeout:.0f} s")


def stop(process: subprocess.Popen, grace: float = 10.0) -> None:
    process.terminate()
    try:
        process.wait(timeout=grace)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


@contextmanager
def moto_front() -> Iterator[OssFront]:
    """moto's S3 server in its own process, behind a front that accepts only OSS V4 signatures."""
    with _moto_process() as upstream:
        front = OssFront(upstream).start()
        try:
            yield front
        finally:
            front.stop()


@contextmanager
def moto_server() -> Iterator[str]:
    """The endpoint of ``moto_front()``: what an OSS client signing V4 connects to."""
    with moto_front() as front:
        yield front.endpoint


@contextmanager
def _moto_process() -> Iterator[str]:
    if find_spec("moto") is None:
        raise ConfigurationError("moto's server is needed: pip install -e '.[test]'", field="stores")
    port = free_port()
    process = subprocess.Popen([sys.executable, "-m", "moto.server", "-H", "127.0.0.1", "-p", str(port)],
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        wait_listening(port, process, "moto's S3 server")
        yield f"http://127.0.0.1:{port}"
    finally:
        stop(process)
