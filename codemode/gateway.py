"""Run a notebook's kernel on a Jupyter Enterprise Gateway (or Kernel Gateway): one notebook in,
the executed notebook and its outcome out.

The route is jupyter_server's gateway client (``jupyter_server.gateway``) under nbclient:
``GatewayClient`` holds the gateway's URL and token (one per process, a traitlets singleton),
``GatewayKernelManager`` starts and deletes the kernel over the REST API (``POST`` and ``DELETE
/api/kernels``), and its kernel client speaks the Jupyter protocol as JSON over the kernel's
``/api/kernels/ID/channels`` websocket. nbclient drives it as it drives a local kernel manager.
jupyter_server's kernel client opens that websocket without the gateway's credentials (its
REST requests carry them), so a gateway with a token refuses it (401): ``AuthorizedGatewayKernelClient``
opens it with the same headers as the REST requests. And its kernel manager cannot say whether
the kernel lives (``CheckedGatewayKernelManager`` asks the gateway; see
:func:`gateway_kernel_manager_class`), nor its client that the kernel died: the gateway restarts
a dead kernel under the same id and says so only on the websocket (``WatchedIOPub``), so a
killed kernel's notebook fails at once as a local one does, not at its time limit.

The kernel runs where the gateway puts it: in the gateway's working folder, or the folder its
kernelspec or ``KERNEL_WORKING_DIR`` names (set in this process's environment, it is sent with
the start request, as every ``KERNEL_*`` variable is), not beside the local notebook. The
gateway's kernelspec names the kernel (``kernel_name``; by default the notebook's).
"""

from __future__ import annotations

from pathlib import Path
from threading import Thread
from typing import Any

from codemode.install import DEFAULT_NAME as KERNEL_NAME
from codemode.notebook import Executed, LastReply, clear_outputs, execute_with, read_notebook, time_left


def gateway_kernel_manager_class() -> type:
    """:class:`CheckedGatewayKernelManager` (with :class:`AuthorizedGatewayKernelClient`), built
    on first use (jupyter_server loads slowly)."""
    import websocket
    from jupyter_client.asynchronous.client import AsyncKernelClient
    from jupyter_server.gateway.gateway_client import GatewayClient
    from jupyter_server.gateway.managers import ChannelQueue, GatewayKernelClient, GatewayKernelManager
    from jupyter_server.utils import url_path_join
    from tornado.escape import url_escape
    from traitlets import Type

    class WatchedIOPub(ChannelQueue):
        """The IOPub queue, noting the gateway's own word that the kernel died: the server behind
        the websocket sends an IOPub ``status`` of ``restarting`` when its restarter found the
        kernel dead and started another (jupyter_server's ``ZMQChannelsHandler.on_kernel_restarted``),
        ``dead`` when that failed; a kernel itself sends only ``starting``, ``busy`` and ``idle``
        (Jupyter messaging spec, "Kernel status")."""

        died = False

        def put_nowait(self, item: Any) -> None:
            if item.get("msg_type") == "status" and item.get("content", {}).get("execution_state") in (
                "restarting",
                "dead",
            ):
                self.died = True
            super().put_nowait(item)

    class AuthorizedGatewayKernelClient(GatewayKernelClient):
        """jupyter_server's ``GatewayKernelClient`` whose websocket carries the gateway's headers
        (``Authorization: token ...``), as its REST requests do, and which answers that its
        kernel is gone once the gateway said it died (:class:`WatchedIOPub`). A gateway restarts
        a dead kernel under the same id, so asking it whether the kernel lives says yes, and the
        cell that was running would wait for its reply until the time limit; nbclient asks the
        client (``is_alive``) while it waits and fails the run as a dead kernel."""

        @property
        def iopub_channel(self) -> ChannelQueue:
            if self._iopub_channel is None:
                assert self.channel_socket is not None and self._channel_queues is not None
                self._iopub_channel = WatchedIOPub("iopub", self.channel_socket, self.log)
                self._channel_queues["iopub"] = self._iopub_channel
            return self._iopub_channel

        async def is_alive(self) -> bool:
            if isinstance(self._iopub_channel, WatchedIOPub) and self._iopub_channel.died:
                return False
            return bool(await super()._async_is_alive())

        async def start_channels(  # type: ignore[override]  # async, as jupyter_server's own
            self, shell: bool = True, iopub: bool = True, stdin: bool = True, hb: bool = True, control: bool = True
        ) -> None:
            gateway = GatewayClient.instance()
            url = url_path_join(gateway.ws_url or "", gateway.kernels_endpoint, url_escape(self.kernel_id), "channels")
            headers = gateway.load_connection_args()["headers"]
            self.channel_socket = websocket.create_connection(
                url,
                timeout=gateway.KERNEL_LAUNCH_TIMEOUT,
                enable_multithread=True,
                header=[f"{key}: {value}" for key, value in headers.items() if key.lower() == "authorization"],
                sslopt={"ca_certs": gateway.ca_certs, "certfile": gateway.client_cert, "keyfile": gateway.client_key},
            )
            AsyncKernelClient.start_channels(self, shell=shell, iopub=iopub, stdin=stdin, hb=hb, control=control)
            self.response_router = Thread(target=self._route_responses)
            self.response_router.start()

    class CheckedGatewayKernelManager(GatewayKernelManager):
        """jupyter_server's ``GatewayKernelManager`` that answers jupyter_client's liveness
        question. ``wait_for_ready`` asks it (``_async_is_alive``) whenever a kernel_info
        reply takes longer than a second, and the inherited answer asserts on the local
        process's provisioner, which a gateway kernel has not: the run failed with an empty
        ``AssertionError`` when the kernel started slowly. Here the gateway is asked
        (``is_alive``: the kernel's model, ``GET /api/kernels/ID``)."""

        client_factory = Type(AuthorizedGatewayKernelClient, klass=GatewayKernelClient)

        async def _async_is_alive(self) -> bool:
            return bool(await self.is_alive())

    return CheckedGatewayKernelManager


def gateway_kernel_name(nb: Any) -> str:
    """The gateway kernelspec a notebook asks for: its ``metadata.kernelspec.name`` as it is (a
    gateway names its kernelspecs as it likes, ``codemode_eg`` say), else ``codemode``."""
    name = str(nb.get("metadata", {}).get("kernelspec", {}).get("name", ""))
    return name or KERNEL_NAME


def configure_gateway(url: str, token: str | None) -> None:
    """Point this process's ``GatewayClient`` at ``url`` (``http[s]://host:port``) with ``token``
    (None: no ``Authorization`` header), replacing an earlier configuration."""
    from jupyter_server.gateway.gateway_client import GatewayClient

    GatewayClient.clear_instance()
    GatewayClient.instance(url=url.rstrip("/"), auth_token=token)


def run_on_gateway(
    path: str | Path,
    url: str,
    token: str | None = None,
    *,
    kernel_name: str | None = None,
    timeout_s: float = 300,
) -> Executed:
    """Execute the notebook at ``path`` in a new kernel on the gateway at ``url`` (authorised by
    ``token``), of the gateway's kernelspec ``kernel_name`` (default: the notebook's,
    :func:`gateway_kernel_name`), the whole run bounded by ``timeout_s`` seconds
    (:func:`codemode.notebook.time_left`). Returns the executed notebook and why the run stopped
    early, if it did (:class:`codemode.notebook.Executed`). The kernel is deleted on the gateway
    afterwards, whatever happened.

    Raises ``FileNotFoundError`` for a missing notebook, :class:`codemode.notebook.NotebookError`
    for one that is not valid, and ``tornado.web.HTTPError`` when the
    gateway refuses to start the kernel (unreachable, wrong token, unknown kernelspec).
    """
    from nbclient import NotebookClient

    nb = read_notebook(Path(path))
    name = kernel_name or gateway_kernel_name(nb)
    clear_outputs(nb)
    configure_gateway(url, token)
    manager = gateway_kernel_manager_class()(kernel_name=name)
    last = LastReply()
    client = NotebookClient(nb, km=manager, kernel_name=name, timeout_func=time_left(timeout_s), on_cell_executed=last)
    # nbclient deletes a kernel it did not make the manager for only when told (cleanup_kc).
    return execute_with(client, nb, timeout_s, last, kernel_name=name, cleanup_kc=True)
