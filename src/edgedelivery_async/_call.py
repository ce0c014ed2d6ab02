"""What generated methods return and how a resource runs it.

A generated method only describes its call: `Call(operation id, result parser,
path=..., query=..., body=...)`. `@endpoint` turns the method into one that sends
that call through the client's runtime and returns the result, and gives it
`.with_response(...)` (the result with its HTTP reply) and `.map(keys, ...)`
(the same call over many first arguments, concurrently; see `fan_out`).
"""

from __future__ import annotations

import functools
import inspect
import os
import types
from collections.abc import (
    AsyncGenerator,
    AsyncIterable,
    Callable,
    Iterable,
    Mapping,
)
from dataclasses import dataclass, field
from typing import (
    TYPE_CHECKING,
    Any,
    Concatenate,
    Generic,
    ParamSpec,
    Protocol,
    Self,
    TypeVar,
    overload,
)

from edgedelivery_openapi.types import Unset

from ._exceptions import InvalidRequestError
from ._schema import Problem

if TYPE_CHECKING:
    from pathlib import Path

    from ._bulk import BulkProgress, BulkResult
    from ._http import RawResponse
    from ._response import APIResponse
    from ._telemetry import Telemetry

P = ParamSpec("P")
T = TypeVar("T")
K = TypeVar("K")


@dataclass(slots=True)
class Call(Generic[T]):
    """One operation call as data: what to send, and how to read the result.

    (Not frozen: a frozen dataclass costs a microsecond per call on the bulk path.)

    `result` is a generated model class, a scalar type (`int`, `str`, ...), `object`
    (any JSON) or None (no result). Values equal to `UNSET` are left out.
    """

    operation_id: str
    result: Any
    path: Mapping[str, object] = field(default_factory=dict)
    query: Mapping[str, object] = field(default_factory=dict)
    headers: Mapping[str, object] = field(default_factory=dict)
    cookies: Mapping[str, object] = field(default_factory=dict)  # sent in one `Cookie` header
    body: Any = field(default=None, repr=False)  # may hold a password
    method: str | None = None  # set only by `client.request`: no operation of the document
    raw_path: str | None = None


class KeywordBody(dict[str, Any]):
    """A body built from keyword fields: a None there means "not given" unless nullable."""


class Runtime(Protocol):
    """What resources need of the client: run a call."""

    async def execute(self, call: Call[T]) -> APIResponse[T]: ...

    async def run(self, call: Call[T]) -> tuple[T, RawResponse]: ...

    async def download(self, call: Call[Any], destination: Any) -> APIResponse[Path]: ...

    def reserve_connections(self, count: int) -> None: ...

    def finishing(self, remaining: int) -> None: ...

    @property
    def telemetry(self) -> Telemetry | None: ...


class Resource:
    """A group of operations (one tag of the document) bound to a client's runtime."""

    __slots__ = ("_runtime",)

    def __init__(self, runtime: Runtime) -> None:
        self._runtime = runtime

    def __repr__(self) -> str:
        return f"<{type(self).__name__} resource>"


def endpoint(
    operation_id: str,
) -> Callable[[Callable[Concatenate[Any, P], Call[T]]], Endpoint[P, T]]:
    """Decorator for generated methods that return a `Call` of `operation_id`."""

    def wrap(method: Callable[Concatenate[Any, P], Call[T]]) -> Endpoint[P, T]:
        return Endpoint(method, operation_id)

    return wrap


class Endpoint(Generic[P, T]):
    """A generated method on its resource class: binds to `BoundEndpoint` on access."""

    def __init__(self, method: Callable[Concatenate[Any, P], Call[T]], operation_id: str) -> None:
        self._method = method
        self.operation_id = operation_id
        self.__doc__ = method.__doc__
        self.__name__ = method.__name__
        self.__qualname__ = method.__qualname__
        self.__wrapped__ = method

    def __call__(self, resource: Resource, /, *args: P.args, **kwargs: P.kwargs) -> Call[T]:
        """The call these arguments describe (unbound use, e.g. `inspect.signature`)."""
        return self._method(resource, *args, **kwargs)

    @overload
    def __get__(self, instance: None, owner: type[Any]) -> Self: ...

    @overload
    def __get__(self, instance: Resource, owner: type[Any]) -> BoundEndpoint[P, T]: ...

    def __get__(self, instance: Resource | None, owner: type[Any]) -> Self | BoundEndpoint[P, T]:
        if instance is None:
            return self
        return BoundEndpoint(self._method, instance, self.operation_id)


class BoundEndpoint(Generic[P, T]):
    """A generated method bound to its resource: await it, or use a variant below."""

    __slots__ = ("_instance", "_method", "operation_id")

    def __init__(
        self,
        method: Callable[Concatenate[Any, P], Call[T]],
        instance: Resource,
        operation_id: str,
    ) -> None:
        self._method = method
        self._instance = instance
        self.operation_id = operation_id

    @property
    def __doc__(self) -> str | None:  # type: ignore[override]
        return self._method.__doc__

    @property
    def __name__(self) -> str:
        return self._method.__name__

    # Introspection (`inspect.signature`, `help()`, IPython's `?`): the generated method's
    # own parameters after `self` and the type the await returns, and an async function
    # for `inspect.iscoroutinefunction` (it reads the code flags of `__code__`).
    @property
    def __signature__(self) -> inspect.Signature:
        return _awaited_signature(self._method)

    @property
    def __wrapped__(self) -> Callable[..., Any]:
        return self._method

    @property
    def __code__(self) -> types.CodeType:
        return _AWAITED_CODE

    @property
    def __defaults__(self) -> None:
        return None

    @property
    def __kwdefaults__(self) -> None:
        return None

    @property
    def __annotations__(self) -> dict[str, Any]:  # type: ignore[override]
        signature = self.__signature__
        found = {p.name: p.annotation for p in signature.parameters.values()}
        return {**found, "return": signature.return_annotation}

    def __get__(self, instance: object, owner: type[Any] | None = None) -> Self:
        """A method descriptor for `help()`, which then documents it as a routine."""
        return self

    def describe(self, *args: P.args, **kwargs: P.kwargs) -> Call[T]:
        """The call these arguments make, without sending it."""
        try:
            return self._method(self._instance, *args, **kwargs)
        except TypeError as exc:  # wrong arguments for the signature
            name = self._method.__qualname__
            raise InvalidRequestError(name, [Problem("", str(exc), "")]) from None

    async def __call__(self, *args: P.args, **kwargs: P.kwargs) -> T:
        parsed, _ = await self._instance._runtime.run(self.describe(*args, **kwargs))
        return parsed

    async def with_response(self, *args: P.args, **kwargs: P.kwargs) -> APIResponse[T]:
        """Call, and return the result with the HTTP status, headers and retries of the reply."""
        return await self._instance._runtime.execute(self.describe(*args, **kwargs))

    async def to_file(
        self, destination: str | os.PathLike[str], /, *args: P.args, **kwargs: P.kwargs
    ) -> APIResponse[Path]:
        """Call, and write the reply's body to the file `destination` as it arrives.

        For operations whose reply is binary or text (an export, an archive): the body is
        never held in memory whole. Capped by the client's `max_download_bytes` (else its
        `max_response_bytes`); nothing is left at `destination` unless the whole body
        arrived. Returns the path with the HTTP reply; see `edgedelivery_async._download`.
        """
        return await self._instance._runtime.download(self.describe(*args, **kwargs), destination)

    def iterate(self, *args: P.args, **kwargs: P.kwargs) -> AsyncGenerator[Any, None]:
        """Every item of every page of a paginated list operation (`x-sdk-pagination`),
        page after page until the last; see `edgedelivery_async._pages`."""
        from ._pages import pages
        from ._schema import operations

        operation = operations().get(self.operation_id)
        rule = operation.pagination if operation is not None else None
        return pages(self.with_response, self.operation_id, rule, args, dict(kwargs))

    def map(
        self,
        keys: Iterable[K] | AsyncIterable[K],
        *,
        concurrency: int = 100,
        rate_limit: float | None = None,
        progress: BulkProgress | None = None,
        **arguments: Any,
    ) -> AsyncGenerator[BulkResult[K, T], None]:
        """Call once per key (the first argument); results stream as they finish.

        `arguments` are the method's other arguments, by name, the same for every key
        (`client.pull_zones.set_force_ssl.map(ids, hostname=..., force_ssl=True)`); ones
        the method does not take, or a required one missing, raise `InvalidRequestError`
        here, before any call. Every key yields exactly one `BulkResult`. See `fan_out`
        for the guarantees.
        """
        from ._bulk import MOST_CONCURRENCY, fan_out

        try:  # (the key's place holds a stand-in: only the names are checked here)
            inspect.signature(self._method).bind(self._instance, _KEY, **arguments)
        except TypeError as exc:
            name = self._method.__qualname__
            raise InvalidRequestError(f"{name}.map", [Problem("", str(exc), "")]) from None
        call = functools.partial(self, **arguments) if arguments else self
        runtime = self._instance._runtime
        if isinstance(concurrency, int) and not isinstance(concurrency, bool) and concurrency > 0:
            runtime.reserve_connections(min(concurrency, MOST_CONCURRENCY))
        results = fan_out(
            call,  # type: ignore[arg-type]
            keys,
            concurrency=concurrency,
            rate_limit=rate_limit,
            progress=progress,
            finishing=runtime.finishing,
        )
        telemetry = runtime.telemetry
        if telemetry is None:
            return results
        return _traced(results, telemetry, self.operation_id or self.__name__)

    def __repr__(self) -> str:
        return f"<endpoint {self._method.__qualname__}>"


async def _traced(
    results: AsyncGenerator[BulkResult[K, T], None], telemetry: Telemetry, name: str
) -> AsyncGenerator[BulkResult[K, T], None]:
    """Results as they come, counted into a bulk trace that starts with the first read
    (a run never iterated has no span) and ends with the run; leaving early (`break`)
    is no error."""
    from ._telemetry import GuardedBulk

    trace = GuardedBulk(telemetry, name)
    error: BaseException | None = None
    try:
        async for result in results:
            trace.item(result.ok)
            yield result
    except GeneratorExit:
        raise
    except BaseException as exc:
        error = exc
        raise
    finally:
        await results.aclose()
        trace.end(error)


async def _awaited() -> None:
    """Its code object marks bound endpoints as async functions."""


_AWAITED_CODE = _awaited.__code__
_KEY = object()  # a bulk run's key, in `map`'s check of its other arguments


@functools.cache
def _awaited_signature(method: Callable[..., Any]) -> inspect.Signature:
    """`method`'s signature without `self`, returning what awaiting its `Call[T]` gives."""
    signature = inspect.signature(method)
    parameters = list(signature.parameters.values())[1:]
    returned: Any = signature.return_annotation
    if isinstance(returned, str) and returned.startswith("Call[") and returned.endswith("]"):
        returned = returned[len("Call[") : -1]
    return signature.replace(parameters=parameters, return_annotation=returned)


def body_of(
    operation_id: str,
    whole_name: str,
    whole: Any,
    fields: Mapping[str, Any],
    extra: Mapping[str, Any] | None,
) -> Any:
    """A request body from the whole-body argument `whole_name` or keyword fields.

    Fields left `UNSET` are not sent; None is sent as null only where the document
    allows null (the runtime drops it elsewhere). `extra` adds fields the document
    does not name.
    """
    given = {name: value for name, value in fields.items() if not isinstance(value, Unset)}
    if extra is not None and not isinstance(extra, Mapping):
        raise InvalidRequestError(
            operation_id, [Problem("extra_fields", "must be a mapping of field names")]
        )
    if whole is not None:
        if given or extra:
            message = f"pass either {whole_name} or keyword fields (or extra_fields), not both"
            raise InvalidRequestError(operation_id, [Problem("", message)])
        return whole
    return KeywordBody({**given, **(extra or {})})


def pairs(value: Any, key: str, item: str) -> Any:
    """A `{k: v}` mapping as `[{key: k, item: v}, ...]`; any other value as given."""
    if isinstance(value, Mapping):
        return [{key: name, item: member} for name, member in value.items()]
    return value


__all__ = [
    "BoundEndpoint",
    "Call",
    "Endpoint",
    "KeywordBody",
    "Resource",
    "Runtime",
    "body_of",
    "endpoint",
    "pairs",
]
