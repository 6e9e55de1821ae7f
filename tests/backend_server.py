"""A real observability backend (Phoenix, MLflow) as a process on a free 127.0.0.1 port, in a
temporary working dir, in its own process group so that whatever it starts ends with it."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from typing import Any

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def get(url: str) -> Any:
    with urllib.request.urlopen(url, timeout=30) as r:  # noqa: S310 - 127.0.0.1 only
        return json.load(r)


def post(url: str, body: Any) -> Any:
    req = urllib.request.Request(url, json.dumps(body).encode(), {"Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=30) as r:  # noqa: S310 - 127.0.0.1 only
        return json.load(r)


class BackendServer:
    def __init__(self, name: str, argv: list[str], env: dict[str, str], workdir: str, port: int,
                 health: str, timeout: float = 300) -> None:
        self.name = name
        self.workdir = workdir
        self.port = port
        self.url = f"http://127.0.0.1:{port}"
        self.log_path = os.path.join(workdir, f"{name}.log")
        self.log = open(self.log_path, "wb")
        base = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": workdir, "LANG": "C.UTF-8"}
        t0 = time.monotonic()
        self.proc = subprocess.Popen(argv, cwd=workdir, env={**base, **env}, stdout=self.log,
                                     stderr=subprocess.STDOUT, start_new_session=True)
        while time.monotonic() - t0 < timeout:
            if self.proc.poll() is not None:
                raise RuntimeError(f"{name} exited: {self.tail()}")
            try:
                with urllib.request.urlopen(self.url + health, timeout=2) as r:  # noqa: S310
                    if r.status == 200:
                        break
            except OSError:
                time.sleep(0.5)
        else:
            self.stop()
            raise RuntimeError(f"{name} did not start in {timeout:.0f} s: {self.tail()}")
        print(f"{name} up in {time.monotonic() - t0:.1f} s", file=sys.stderr)

    def tail(self) -> str:
        self.log.flush()
        with open(self.log_path, "rb") as f:
            return f.read()[-2000:].decode("utf-8", "replace")

    def stored(self, prefix: str) -> bytes:
        """Every byte of the files whose names start with ``prefix`` (a database and its WAL)."""
        data = b""
        for name in os.listdir(self.workdir):
            if name.startswith(prefix):
                with open(os.path.join(self.workdir, name), "rb") as f:
                    data += f.read()
        return data

    def stop(self) -> None:
        pgid = self.proc.pid  # its own session: the group id is its pid
        for sig, wait in ((signal.SIGTERM, 30), (signal.SIGKILL, 10)):
            try:
                os.killpg(pgid, sig)
            except ProcessLookupError:
                break
            try:
                self.proc.wait(wait)
                break
            except subprocess.TimeoutExpired:
                continue
        try:  # children that outlived the leader
            os.killpg(pgid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        self.log.close()
