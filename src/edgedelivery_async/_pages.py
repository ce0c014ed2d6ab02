"""Every item of a paginated list operation, page after page (`x-sdk-pagination`).

The document declares pagination once (codegen/README.md, Pagination): the page query
parameter, the array member holding a page's items and, optionally, the boolean member
saying more pages follow. `method.iterate(...)` then yields the items of every page, from
the first (or the `page` given), and stops after the last: a page without items, one
whose "more" member is not true, or one that repeats the page before it (a server that
ignores the page number never makes the iteration endless). Errors are the SDK's own, as
for one call; each page is one call with the client's retries and timeouts.
"""

from __future__ import annotations

import re
from collections.abc import AsyncGenerator, Awaitable, Callable, Mapping
from typing import Any

from edgedelivery_openapi.types import Unset

from ._exceptions import InvalidRequestError
from ._schema import Problem

Page = Callable[..., Awaitable[Any]]


async def pages(
    call: Page,
    operation_id: str,
    rule: Mapping[str, Any] | None,
    args: tuple[Any, ...],
    kwargs: dict[str, Any],
) -> AsyncGenerator[Any, None]:
    """The items of every page `call(*args, **kwargs, <page>=n)` returns."""
    if not rule:
        message = "is not paginated: the document gives it no x-sdk-pagination"
        raise InvalidRequestError(operation_id, [Problem("", message)])
    argument = str(rule["page-argument"])
    page = kwargs.pop(argument, None)
    if page is None or isinstance(page, Unset):
        page = int(rule.get("first", 1))
    previous: list[Any] | None = None
    while True:
        result = await call(*args, **{**kwargs, argument: page})
        items = _member(result, rule.get("items"))
        items = list(items) if isinstance(items, list | tuple) else []
        if not items or items == previous:
            return
        for item in items:
            yield item
        if rule.get("has-more"):
            more = _member(result, rule["has-more"])
            if more is not True:
                return
        previous = items
        page += 1


def _member(result: Any, wire: Any) -> Any:
    """A member of a page by its wire name: the JSON object's member, or the model's
    attribute spelled like it (`HasMoreItems` -> `has_more_items`)."""
    if isinstance(result, Mapping):
        return result.get(wire)
    wanted = _squash(str(wire))
    for field in getattr(type(result), "__attrs_attrs__", ()):
        if _squash(field.name) == wanted:
            return getattr(result, field.name)
    return None


def _squash(name: str) -> str:
    return re.sub(r"[^0-9a-z]", "", name.lower())
