"""Sending one HTTP request: the small seam between the facade and an HTTP stack.

Two stacks sit behind one protocol. The default is aiohttp, measured several times
faster than httpx under concurrency (shared/notes/performance.md, benchmarks/); a
caller's own `httpx.AsyncClient` (for example with `httpx.MockTransport`) is used as
given. Both map every failure into the SDK's connection errors, follow no
redirects themselves, and return the whole body as bytes.
"""

from __future__ import annotations

import asyncio
import functools
import ssl
import time
import urllib.request

import aiohttp
import httpx
from yarl import URL

from ._exceptions import APIConnectionError, APITimeoutError
from ._http import RawRequest, RawResponse, origin
from ._timeouts import Timeout


@functools.cache
def shared_ssl_context() -> ssl.SSLContext:
    """One default-verifying SSL context for every client in the process."""
    return ssl.create_default_context()


class AiohttpTransport:
    """The default stack: one aiohttp session, created on first use in the running loop."""

    def __init__(self, *, max_connections: int = 100) -> None:
        self.max_connections = max_connections
        self._session: aiohttp.ClientSession | None = None
        self._timeouts: dict[Timeout, aiohttp.ClientTimeout] = {}
        self._proxies: dict[str, str | None] = {}

    def reserve_connections(self, count: int) -> None:
        """Raise the pool size to `count` if the pool is not open yet."""
        if self._session is None:
            self.max_connections = max(self.max_connections, count)

    def _open(self) -> aiohttp.ClientSession:
        connector = aiohttp.TCPConnector(
            limit=self.max_connections, limit_per_host=0, ssl=shared_ssl_context()
        )
        self._session = aiohttp.ClientSession(
            connector=connector,
            cookie_jar=aiohttp.DummyCookieJar(),
            skip_auto_headers=("User-Agent",),
            trust_env=False,  # aiohttp would look up netrc and proxies in a thread per request
        )
        return self._session

    def _proxy(self, url: str) -> str | None:
        """The HTTP(S)_PROXY for a URL's origin, honouring NO_PROXY; looked up once per origin."""
        key = url[: url.find("/", url.find("//") + 2)]  # scheme://host:port, cheaply
        if key not in self._proxies:
            scheme, host, _ = origin(key)
            proxies = urllib.request.getproxies()
            bypass = not proxies or urllib.request.proxy_bypass(host)
            self._proxies[key] = None if bypass else proxies.get(scheme)
        return self._proxies[key]

    def _client_timeout(self, timeout: Timeout) -> aiohttp.ClientTimeout:
        found = self._timeouts.get(timeout)
        if found is None:
            found = aiohttp.ClientTimeout(
                total=timeout.total, sock_connect=timeout.connect, sock_read=timeout.read
            )
            self._timeouts[timeout] = found
        return found

    async def send(self, request: RawRequest, timeout: Timeout) -> RawResponse:
        session = self._session or self._open()
        started = time.monotonic()
        try:
            async with session.request(
                request.method,
                URL(request.url, encoded=True),
                headers=request.headers,
                data=request.content,
                allow_redirects=False,
                timeout=self._client_timeout(timeout),
                proxy=self._proxy(request.url),
            ) as reply:
                content = await reply.read()
                return RawResponse(
                    request.method,
                    request.url,
                    request.path,
                    reply.status,
                    reply.headers,
                    content,
                    time.monotonic() - started,
                )
        except aiohttp.ConnectionTimeoutError as exc:
            raise _timeout(request, "timed out connecting", sent=False) from exc
        except (aiohttp.ServerTimeoutError, TimeoutError) as exc:
            raise _timeout(request, "timed out waiting for the reply", sent=True) from exc
        except aiohttp.ClientConnectorError as exc:
            raise _broken(request, f"could not connect ({type(exc).__name__})", sent=False) from exc
        except (aiohttp.ClientError, OSError) as exc:
            raise _broken(request, f"connection failed ({type(exc).__name__})", sent=True) from exc

    async def aclose(self) -> None:
        if self._session is not None:
            await self._session.close()
            self._session = None


class HttpxTransport:
    """A caller's `httpx.AsyncClient`, used as given; closing it stays the caller's job."""

    def __init__(self, client: httpx.AsyncClient) -> None:
        self.client = client

    async def send(self, request: RawRequest, timeout: Timeout) -> RawResponse:
        started = time.monotonic()
        built = self.client.build_request(
            request.method,
            request.url,
            headers=request.headers,
            content=request.content,
            timeout=httpx.Timeout(timeout.read, connect=timeout.connect, pool=timeout.total),
        )
        try:
            async with asyncio.timeout(timeout.total):
                reply = await self.client.send(built, follow_redirects=False)
                try:
                    content = await reply.aread()
                finally:
                    await reply.aclose()
        except (httpx.ConnectTimeout, httpx.PoolTimeout) as exc:
            raise _timeout(request, "timed out connecting", sent=False) from exc
        except (httpx.TimeoutException, TimeoutError) as exc:
            raise _timeout(request, "timed out waiting for the reply", sent=True) from exc
        except httpx.ConnectError as exc:
            raise _broken(request, f"could not connect ({type(exc).__name__})", sent=False) from exc
        except (httpx.HTTPError, httpx.StreamError, OSError) as exc:
            raise _broken(request, f"connection failed ({type(exc).__name__})", sent=True) from exc
        return RawResponse(
            request.method,
            request.url,
            request.path,
            reply.status_code,
            reply.headers,
            content,
            time.monotonic() - started,
        )

    def reserve_connections(self, count: int) -> None:
        """The caller's client keeps its own pool limits."""

    async def aclose(self) -> None:
        """The caller owns the client."""


def _timeout(request: RawRequest, what: str, *, sent: bool) -> APITimeoutError:
    return APITimeoutError(what, method=request.method, path=request.path, request_sent=sent)


def _broken(request: RawRequest, what: str, *, sent: bool) -> APIConnectionError:
    return APIConnectionError(what, method=request.method, path=request.path, request_sent=sent)
