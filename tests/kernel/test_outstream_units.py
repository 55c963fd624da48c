"""The kernel's stdout/stderr wait for the IOPub thread only when something was written."""

from __future__ import annotations

import pytest
from ipykernel.iostream import OutStream

from codemode.kernel.outstream import KernelOutStream

pytestmark = pytest.mark.unit


@pytest.fixture
def flushes(monkeypatch) -> list[str]:
    calls: list[str] = []
    monkeypatch.setattr(OutStream, "flush", lambda self: calls.append("ipykernel flush"))
    return calls


def _stream(pending: bool, subprocess_pending: bool) -> KernelOutStream:
    stream = KernelOutStream.__new__(KernelOutStream)  # not initialised: the flags are all flush reads
    stream._flush_pending = pending
    stream._subprocess_flush_pending = subprocess_pending
    return stream


def test_nothing_written_nothing_waited_for(flushes):
    _stream(False, False).flush()
    assert flushes == []


@pytest.mark.parametrize(("pending", "subprocess_pending"), [(True, False), (False, True), (True, True)])
def test_a_pending_write_is_flushed_as_ipykernel_does(flushes, pending, subprocess_pending):
    _stream(pending, subprocess_pending).flush()
    assert flushes == ["ipykernel flush"]


def test_the_kernel_app_uses_it():
    from codemode.kernel.app import CodeModeKernelApp

    assert CodeModeKernelApp.outstream_class.default_value == "codemode.kernel.outstream.KernelOutStream"
