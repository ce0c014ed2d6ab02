"""Every item of a paginated list operation, page after page (`x-sdk-pagination`).

The document declares pagination once (codegen/README.md, Pagination): the page query
parameter, the array member holding a page's items and, optionally, the boolean member
saying more pages follow. `method.iterate(...)` then yields the items of every page, from
the first (or the `page` given), in order. The guarantees:

- It ends. It stops cleanly after a page whose "more" member is not true, and, when the
  document declares no "more" member, after a page without items or a page identical to
  the one before it (a server that answers past the end with its last page).
- It never loops, and never ends short in silence. These raise
  `APIResponseValidationError`, after the items already yielded, instead: a page
  identical to the one before it while the server says more pages follow (it ignores
  the page number); a page without items, or without its items member (or null there),
  while "more" says true; and more than `MAX_PAGES` pages (a server that never stops
  saying more follow, cycles through pages, or ignores the page number while changing
  its items, a timestamp say). Equal pages that are not next to each other are read.
- Pages are numbered, so a list that changes while it is read can shift across them:
  an item may then come twice, or not at all, as with any paging by number.
- Each page is one call with the client's retries, rate control and timeouts. An error
  is the SDK's own typed error, raised after the items of the pages before it were
  yielded; cancelling (or leaving the `async for`) keeps what was yielded.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import AsyncGenerator, Awaitable, Callable, Mapping
from typing import Any

from edgedelivery_openapi.types import Unset

from ._exceptions import APIResponseValidationError, InvalidRequestError
from ._response import APIResponse
from ._schema import Problem

Page = Callable[..., Awaitable[APIResponse[Any]]]

# Pages one iteration reads at most: a million items at 100 a page.
MAX_PAGES = 10_000


async def pages(
    call: Page,
    operation_id: str,
    rule: Mapping[str, Any] | None,
    args: tuple[Any, ...],
    kwargs: dict[str, Any],
) -> AsyncGenerator[Any, None]:
    """The items of every page `call(*args, **kwargs, <page>=n)` returns (an `APIResponse`)."""
    if not rule:
        message = "it is not paginated: the document gives it no x-sdk-pagination"
        raise InvalidRequestError(operation_id or "request", [Problem("", message, "")])
    argument = str(rule["page-argument"])
    page = kwargs.pop(argument, None)
    if page is None or isinstance(page, Unset):
        page = int(rule.get("first", 1))
    if isinstance(page, bool) or not isinstance(page, int):
        problem = Problem(argument, f"must be an integer page number, got {page!r}")
        raise InvalidRequestError(operation_id, [problem])
    previous: bytes | None = None  # a digest of the previous page's items
    yielded = read = 0
    while True:
        reply = await call(*args, **{**kwargs, argument: page})
        read += 1
        result = reply.parsed
        found = _member(result, rule.get("items"))
        more = _member(result, rule["has-more"]) is True if rule.get("has-more") else None
        items = list(found) if isinstance(found, list | tuple) else None
        if not items:
            if not more:
                return
            what = "no items" if items is not None else f"no {rule.get('items')}"
            raise APIResponseValidationError(
                reply.raw,
                None,
                message=f"{operation_id}: page {page} has {what} while the reply's "
                f"{rule['has-more']} says more pages follow; stopped after {yielded} items",
            )
        fingerprint = hashlib.blake2b(repr(items).encode(), digest_size=16).digest()
        if fingerprint == previous:
            if more is None:  # no "more" member: the last page again is the end
                return
            raise APIResponseValidationError(
                reply.raw,
                None,
                message=f"{operation_id}: page {page} repeats page {page - 1} while the "
                f"reply's {rule['has-more']} says more pages follow (does the server ignore "
                f"{rule.get('page', argument)!r}?); stopped after {yielded} items",
            )
        previous = fingerprint
        for item in items:
            yield item
        yielded += len(items)
        if more is False:
            return
        if read >= MAX_PAGES:
            raise APIResponseValidationError(
                reply.raw,
                None,
                message=f"{operation_id}: more than {MAX_PAGES} pages, the most one "
                f"iteration reads; stopped after {yielded} items",
            )
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
