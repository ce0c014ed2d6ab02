"""Hooks: see or change each request, response and retry, on any transport.

`Hooks(on_request=..., on_response=..., on_retry=...)` takes callables (plain or
async), one or a sequence each. A request hook may change `event.headers` (add a
header, say) before the attempt is sent. Hooks never see the access key: it is added
by the transport at its edge, a key a server echoes (a reply header) is shown as ***,
a redirect to a URL holding it is not followed, and an `AccessKey` header a hook sets
is not sent (the client's key is the only one). A hook that raises ends the call with `HookError`.
"""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from ._exceptions import ConfigurationError, EdgeDeliveryError


class HookError(EdgeDeliveryError):
    """A hook raised; the original exception is the `__cause__`."""


@dataclass(slots=True)
class RequestEvent:
    """One attempt about to be sent. `headers` may be changed by a request hook."""

    operation_id: str | None  # None for `client.request`
    method: str
    url: str
    headers: dict[str, str]
    attempt: int  # 0 for the first, then the retry number


@dataclass(frozen=True, slots=True)
class ResponseEvent:
    """A reply to one attempt (any status: hooks run before errors are raised)."""

    request: RequestEvent
    status_code: int
    headers: Any  # case-insensitive mapping
    elapsed: float


@dataclass(frozen=True, slots=True)
class RetryEvent:
    """A retry about to wait `delay` seconds, after `reason` (a status or an SDK error)."""

    request: RequestEvent
    retry: int  # 1 for the first retry
    delay: float
    reason: int | BaseException


Hook = Callable[[Any], Any]


def _hooks(value: Hook | Sequence[Hook] | None, name: str) -> tuple[Hook, ...]:
    if value is None:
        return ()
    found = (value,) if callable(value) else tuple(value) if isinstance(value, Sequence) else None
    if found is None or not all(callable(hook) for hook in found):
        raise ConfigurationError(f"{name} must be a callable or a sequence of callables")
    return found


@dataclass(frozen=True, slots=True, init=False)
class Hooks:
    """Callbacks run around every attempt of every call of a client."""

    on_request: tuple[Hook, ...] = field(default=())
    on_response: tuple[Hook, ...] = field(default=())
    on_retry: tuple[Hook, ...] = field(default=())

    def __init__(
        self,
        *,
        on_request: Hook | Sequence[Hook] | None = None,
        on_response: Hook | Sequence[Hook] | None = None,
        on_retry: Hook | Sequence[Hook] | None = None,
    ) -> None:
        object.__setattr__(self, "on_request", _hooks(on_request, "on_request"))
        object.__setattr__(self, "on_response", _hooks(on_response, "on_response"))
        object.__setattr__(self, "on_retry", _hooks(on_retry, "on_retry"))

    def __bool__(self) -> bool:
        return bool(self.on_request or self.on_response or self.on_retry)


async def run(hooks: tuple[Hook, ...], event: Any) -> None:
    """Run hooks in order; any exception becomes HookError."""
    for hook in hooks:
        try:
            result = hook(event)
            if inspect.isawaitable(result):
                await result
        except asyncio.CancelledError as exc:
            task = asyncio.current_task()
            if task is None or task.cancelling():  # the caller's cancellation: it goes on
                raise
            name = getattr(hook, "__qualname__", type(hook).__name__)
            raise HookError(
                f"hook {name} raised CancelledError, and nobody cancelled the call"
            ) from exc
        except Exception as exc:
            name = getattr(hook, "__qualname__", type(hook).__name__)
            raise HookError(f"hook {name} raised {type(exc).__name__}: {exc}") from exc
