"""``codemode.kernel.protections.apply``, run at every kernel creation, is idempotent: a second
run (the kernel of codemode's own app gets the app's settings and then these) changes nothing."""

from __future__ import annotations

import io
import sys
from collections.abc import Callable
from types import SimpleNamespace
from typing import Any

import pytest
import zmq
from ipykernel.iostream import OutStream
from ipykernel.kernelapp import IPKernelApp
from jupyter_client.session import Session

from codemode.kernel import protections
from codemode.kernel.outstream import KernelOutStream

pytestmark = pytest.mark.unit


class FakeIOPubThread:
    """ipykernel's ``IOPubThread`` as ``protect_iopub`` uses it: a socket and ``schedule``."""

    def __init__(self, socket: zmq.Socket[Any]) -> None:
        self.socket = socket
        self.scheduled = 0

    def schedule(self, f: Callable[[], None]) -> None:
        self.scheduled += 1
        f()


def test_applying_twice_leaves_each_protection_as_once(monkeypatch, tmp_path):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "path", ["", str(tmp_path), "/usr/lib/python3"])
    plain = OutStream.__new__(OutStream)  # not initialised: only its class is looked at
    other = io.StringIO()
    monkeypatch.setattr(sys, "stdout", plain)
    monkeypatch.setattr(sys, "stderr", other)
    context = zmq.Context()
    socket = context.socket(zmq.XPUB)
    try:
        session = Session(key=b"k")
        original_pack = session.pack
        app = IPKernelApp()
        kernel = SimpleNamespace(session=session, iopub_thread=FakeIOPubThread(socket), parent=app)
        for _ in range(2):
            protections.apply(kernel)
            assert session.pack.__wrapped__ is original_pack
            assert socket.getsockopt(zmq.SNDHWM) == protections.IOPUB_HIGH_WATER_MARK
            assert sys.path == ["/usr/lib/python3"]
            assert app.ignore_cwd is True
            assert type(sys.stdout) is KernelOutStream and sys.stdout is plain
            assert sys.stderr is other and type(other) is io.StringIO
        assert kernel.iopub_thread.scheduled == 2
    finally:
        socket.close(linger=0)
        context.term()


def test_a_kernel_without_an_app_or_a_socket_gets_the_rest(monkeypatch):
    monkeypatch.setattr(sys, "path", list(sys.path))
    session = Session(key=b"k")
    protections.apply(SimpleNamespace(session=session, iopub_thread=None, parent=None))
    assert hasattr(session.pack, "__wrapped__")
