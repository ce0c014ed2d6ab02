"""A forward proxy and a TLS server with its own CA, started by the tests on loopback.

`ForwardProxy` is a small asyncio HTTP proxy: CONNECT tunnels (for https targets) and
plain-HTTP forwarding (absolute-form requests, one per connection), with Basic proxy
authentication checked on every request. It records what it saw: each request's
method, target and headers, and every byte it relayed from the client, so a test can
assert what a proxy can and cannot read.

`make_ca` writes a throwaway CA and a server certificate for 127.0.0.1/localhost with
the `openssl` command line (the `cryptography` package is not a dependency).
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import ssl
import subprocess
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path

from aiohttp import web

from .loopback import LoopbackServer, stop


@dataclass
class Certificates:
    """PEM files of a throwaway CA and of a server certificate it signed."""

    ca: Path
    cert: Path
    key: Path

    def server_context(self) -> ssl.SSLContext:
        context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
        context.load_cert_chain(self.cert, self.key)
        return context

    def client_context(self) -> ssl.SSLContext:
        return ssl.create_default_context(cafile=self.ca)


def make_ca(directory: Path) -> Certificates:
    """A CA and a certificate for 127.0.0.1 and localhost, signed by it, in `directory`."""

    def openssl(*args: str) -> None:
        subprocess.run(["openssl", *args], cwd=directory, check=True, capture_output=True)

    ec = ("-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes")
    openssl(
        "req", "-x509", *ec, "-keyout", "ca.key", "-out", "ca.pem", "-days", "2",
        "-subj", "/CN=edgedelivery test CA",
        "-addext", "basicConstraints=critical,CA:TRUE",
        "-addext", "keyUsage=critical,keyCertSign,cRLSign",
    )  # fmt: skip
    openssl("req", *ec, "-keyout", "server.key", "-out", "server.csr", "-subj", "/CN=localhost")
    (directory / "server.ext").write_text(
        "subjectAltName=IP:127.0.0.1,DNS:localhost\n"
        "basicConstraints=critical,CA:FALSE\n"
        "keyUsage=critical,digitalSignature\n"
        "extendedKeyUsage=serverAuth\n"
    )
    openssl(
        "x509", "-req", "-in", "server.csr", "-CA", "ca.pem", "-CAkey", "ca.key",
        "-CAcreateserial", "-out", "server.pem", "-days", "2", "-extfile", "server.ext",
    )  # fmt: skip
    return Certificates(directory / "ca.pem", directory / "server.pem", directory / "server.key")


@asynccontextmanager
async def tls_server(certificates: Certificates) -> AsyncIterator[LoopbackServer]:
    """A `LoopbackServer` over https on 127.0.0.1, with the test CA's certificate."""
    loopback = LoopbackServer()
    app = web.Application()
    app.router.add_route("*", "/{tail:.*}", loopback.handle)
    runner = web.AppRunner(app, shutdown_timeout=0.1, handler_cancellation=True)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0, ssl_context=certificates.server_context())
    await site.start()
    host, port = runner.addresses[0][:2]
    loopback.base_url = f"https://{host}:{port}"
    try:
        yield loopback
    finally:
        await stop(runner)


@dataclass
class ProxiedRequest:
    """One request the proxy read: a CONNECT or a forwarded plain-HTTP request."""

    method: str
    target: str
    headers: list[tuple[str, str]]

    def header(self, name: str) -> list[str]:
        return [v for k, v in self.headers if k.lower() == name.lower()]


@dataclass
class ForwardProxy:
    """A CONNECT and plain-HTTP forward proxy on 127.0.0.1 with Basic proxy auth."""

    username: str
    password: str
    url: str = ""  # http://127.0.0.1:port, without credentials
    requests: list[ProxiedRequest] = field(default_factory=list)
    refused: int = 0
    relayed: bytearray = field(default_factory=bytearray)  # every byte from the client
    tls: ssl.SSLContext | None = None  # an https:// proxy when set
    _open: set[asyncio.StreamWriter] = field(default_factory=set)
    _tasks: set[asyncio.Task[None]] = field(default_factory=set)

    @property
    def address(self) -> str:
        return self.url.split("://", 1)[1]

    def url_with_credentials(self, username: str | None = None, password: str | None = None) -> str:
        from urllib.parse import quote

        user = quote(self.username if username is None else username, safe="")
        secret = quote(self.password if password is None else password, safe="")
        scheme, address = self.url.split("://", 1)
        return f"{scheme}://{user}:{secret}@{address}"

    def _authorized(self, request: ProxiedRequest) -> bool:
        token = base64.b64encode(f"{self.username}:{self.password}".encode()).decode()
        return request.header("Proxy-Authorization") == [f"Basic {token}"]

    async def handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        assert task is not None
        self._tasks.add(task)
        self._open.add(writer)
        try:
            head = await reader.readuntil(b"\r\n\r\n")
        except (asyncio.IncompleteReadError, ConnectionError):
            writer.close()
            return
        self.relayed += head
        lines = head.decode("latin-1").split("\r\n")
        method, target, _ = lines[0].split(" ", 2)
        headers = [
            (name.strip(), value.strip())
            for name, _, value in (line.partition(":") for line in lines[1:] if line)
        ]
        request = ProxiedRequest(method, target, headers)
        self.requests.append(request)
        try:
            if not self._authorized(request):
                self.refused += 1
                writer.write(
                    b"HTTP/1.1 407 Proxy Authentication Required\r\n"
                    b'Proxy-Authenticate: Basic realm="test"\r\n'
                    b"Content-Length: 0\r\nConnection: close\r\n\r\n"
                )
                await writer.drain()
            elif method == "CONNECT":
                await self._tunnel(target, reader, writer)
            else:
                await self._forward(request, reader, writer)
        except (ConnectionError, asyncio.IncompleteReadError, ssl.SSLError):
            pass
        finally:
            self._open.discard(writer)
            writer.close()
            with contextlib.suppress(Exception):
                await writer.wait_closed()

    async def _tunnel(
        self, target: str, reader: asyncio.StreamReader, writer: asyncio.StreamWriter
    ) -> None:
        host, port = target.rsplit(":", 1)
        up_reader, up_writer = await asyncio.open_connection(host, int(port))
        self._open.add(up_writer)
        writer.write(b"HTTP/1.1 200 Connection established\r\n\r\n")
        await writer.drain()
        await self._pipe_both(reader, writer, up_reader, up_writer)

    async def _forward(
        self, request: ProxiedRequest, reader: asyncio.StreamReader, writer: asyncio.StreamWriter
    ) -> None:
        """Forward one absolute-form request with `Connection: close`, and relay the reply."""
        from urllib.parse import urlsplit

        parts = urlsplit(request.target)
        assert parts.scheme == "http", request.target
        assert parts.hostname, request.target
        assert parts.port, request.target
        path = parts.path + (f"?{parts.query}" if parts.query else "")
        kept = [
            (k, v)
            for k, v in request.headers
            if k.lower() not in ("proxy-authorization", "proxy-connection", "connection")
        ]
        length = int(next((v for k, v in kept if k.lower() == "content-length"), "0"))
        body = await reader.readexactly(length) if length else b""
        self.relayed += body
        up_reader, up_writer = await asyncio.open_connection(parts.hostname, parts.port)
        self._open.add(up_writer)
        head = "".join(f"{k}: {v}\r\n" for k, v in kept)
        up_writer.write(
            f"{request.method} {path} HTTP/1.1\r\n{head}Connection: close\r\n\r\n".encode("latin-1")
            + body
        )
        await up_writer.drain()
        while block := await up_reader.read(65536):
            writer.write(block)
            await writer.drain()
        up_writer.close()

    async def stop(self) -> None:
        """Cut every open connection and wait for the handlers to end (they end quietly)."""
        for writer in list(self._open):
            writer.transport.abort()
        if self._tasks:
            await asyncio.wait(self._tasks, timeout=2)

    async def _pipe_both(
        self,
        reader: asyncio.StreamReader,
        writer: asyncio.StreamWriter,
        up_reader: asyncio.StreamReader,
        up_writer: asyncio.StreamWriter,
    ) -> None:
        async def pipe(
            source: asyncio.StreamReader, sink: asyncio.StreamWriter, record: bool
        ) -> None:
            try:
                while block := await source.read(65536):
                    if record:
                        self.relayed += block
                    sink.write(block)
                    await sink.drain()
            except (ConnectionError, asyncio.IncompleteReadError):
                pass
            finally:
                with contextlib.suppress(Exception):
                    sink.close()

        await asyncio.gather(pipe(reader, up_writer, True), pipe(up_reader, writer, False))


@asynccontextmanager
async def forward_proxy(
    username: str = "sdk", password: str = "p@ss:w/rd", tls: ssl.SSLContext | None = None
) -> AsyncIterator[ForwardProxy]:
    """A running `ForwardProxy` on 127.0.0.1 (an https:// one when `tls` is given)."""
    proxy = ForwardProxy(username, password, tls=tls)
    server = await asyncio.start_server(proxy.handle, "127.0.0.1", 0, ssl=tls)
    host, port = server.sockets[0].getsockname()[:2]
    proxy.url = f"{'https' if tls else 'http'}://{host}:{port}"
    try:
        yield proxy
    finally:
        server.close()
        await proxy.stop()
        with contextlib.suppress(Exception):
            await asyncio.wait_for(server.wait_closed(), 1)
