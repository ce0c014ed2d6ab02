"""`method.iterate(...)`: every item of every page of an operation the document declares
paginated (`x-sdk-pagination`), stopping after the last page."""

from __future__ import annotations

from typing import Any

import attrs
import pytest

from edgedelivery_async import InvalidRequestError
from edgedelivery_async._pages import pages

RULE = {"page": "page", "page-argument": "page", "items": "Items", "has-more": "HasMoreItems"}


@attrs.define
class Listing:
    items: list[int]
    has_more_items: bool


def server(
    pages_of: dict[int, list[int]], *, model: bool = False, more: bool | None = None
) -> tuple[Any, list[dict[str, Any]]]:
    calls: list[dict[str, Any]] = []

    async def call(*args: Any, **kwargs: Any) -> Any:
        calls.append({"args": args, **kwargs})
        items = pages_of.get(kwargs["page"], [])
        has_more = (kwargs["page"] + 1 in pages_of) if more is None else more
        if model:
            return Listing(items, has_more)
        return {"Items": items, "HasMoreItems": has_more}

    return call, calls


async def _all(call: Any, rule: Any, *args: Any, **kwargs: Any) -> list[Any]:
    return [item async for item in pages(call, "Thing_Index", rule, args, kwargs)]


async def test_every_page_until_the_last() -> None:
    call, calls = server({1: [1, 2], 2: [3], 3: [4, 5]})
    assert await _all(call, RULE, "zone", per_page=2) == [1, 2, 3, 4, 5]
    assert [c["page"] for c in calls] == [1, 2, 3]
    assert all(c["args"] == ("zone",) and c["per_page"] == 2 for c in calls)


async def test_a_model_page_is_read_by_its_attributes() -> None:
    call, _ = server({1: [1], 2: [2]}, model=True)
    assert await _all(call, RULE) == [1, 2]


async def test_the_page_given_is_the_first_and_first_comes_from_the_rule() -> None:
    call, calls = server({0: [0], 1: [1], 2: [2]})
    assert await _all(call, RULE, page=2) == [2]
    assert await _all(call, {**RULE, "first": 0}) == [0, 1, 2]
    assert [c["page"] for c in calls] == [2, 0, 1, 2]


async def test_without_a_more_member_an_empty_page_ends() -> None:
    rule = {k: v for k, v in RULE.items() if k != "has-more"}
    call, calls = server({1: [1], 2: [2]}, more=False)
    assert await _all(call, rule) == [1, 2]
    assert [c["page"] for c in calls] == [1, 2, 3]


async def test_a_server_that_ignores_the_page_number_never_loops() -> None:
    async def call(**kwargs: Any) -> Any:
        return {"Items": [1, 2], "HasMoreItems": True}

    assert await _all(call, RULE) == [1, 2]


async def test_a_missing_or_odd_items_member_yields_nothing() -> None:
    async def call(**kwargs: Any) -> Any:
        return {"Items": None, "HasMoreItems": True}

    assert await _all(call, RULE) == []


async def test_an_operation_without_pagination_is_an_sdk_error() -> None:
    call, calls = server({1: [1]})
    with pytest.raises(InvalidRequestError, match="not paginated"):
        await _all(call, None)
    assert calls == []


async def test_a_shipped_method_without_pagination_says_so() -> None:
    from edgedelivery_async import EdgeDeliveryClient

    client = EdgeDeliveryClient("k3y", "https://api.example.invalid")
    with pytest.raises(InvalidRequestError, match=r"ContainerRegistry_Get: .*not paginated"):
        await anext(client.registries.get.iterate(7))
