"""`@endpoint`: a facade method that also offers `.with_response(...)`.

`await client.registries.get(7)` returns the registry;
`await client.registries.get.with_response(7)` returns an `APIResponse` with the
same result plus the HTTP status, headers and retry count of the reply.
"""

from __future__ import annotations

from collections.abc import Callable, Coroutine
from typing import Any, Concatenate, Generic, ParamSpec, Self, TypeVar, overload

from ._engine import captured_responses
from ._http import RawResponse
from ._response import APIResponse

P = ParamSpec("P")
T = TypeVar("T")


class endpoint(Generic[P, T]):
    """Decorator for resource methods that call one operation."""

    def __init__(self, method: Callable[Concatenate[Any, P], Coroutine[Any, Any, T]]) -> None:
        self._method = method
        self.__doc__ = method.__doc__
        self.__name__ = method.__name__
        self.__qualname__ = method.__qualname__
        self.__wrapped__ = method

    @overload
    def __get__(self, instance: None, owner: type[Any]) -> Self: ...

    @overload
    def __get__(self, instance: object, owner: type[Any]) -> BoundEndpoint[P, T]: ...

    def __get__(self, instance: object | None, owner: type[Any]) -> Self | BoundEndpoint[P, T]:
        if instance is None:
            return self
        return BoundEndpoint(self._method, instance)


class BoundEndpoint(Generic[P, T]):
    """A facade method bound to its resource."""

    __slots__ = ("_instance", "_method")

    def __init__(
        self, method: Callable[Concatenate[Any, P], Coroutine[Any, Any, T]], instance: object
    ) -> None:
        self._method = method
        self._instance = instance

    @property
    def __doc__(self) -> str | None:  # type: ignore[override]
        return self._method.__doc__

    def __call__(self, *args: P.args, **kwargs: P.kwargs) -> Coroutine[Any, Any, T]:
        return self._method(self._instance, *args, **kwargs)

    async def with_response(self, *args: P.args, **kwargs: P.kwargs) -> APIResponse[T]:
        """Call, and return the result with the HTTP status, headers and retries of the reply."""
        slot: list[RawResponse] = []
        token = captured_responses.set(slot)
        try:
            parsed = await self._method(self._instance, *args, **kwargs)
        finally:
            captured_responses.reset(token)
        return APIResponse(parsed, slot[-1])

    def __repr__(self) -> str:
        return f"<endpoint {self._method.__qualname__}>"
