"""`method.iterate(...)`: every item of every page of an operation the document declares
paginated (`x-sdk-pagination`), stopping after the last page."""

from __future__ import annotations

from typing import Any

import attrs
import pytest

from edgedelivery_async import APIResponseValidationError, InvalidRequestError, _pages
from edgedelivery_async._http import RawResponse
from edgedelivery_async._pages import pages
from edgedelivery_async._response import APIResponse

RULE = {"page": "page", "page-argument": "page", "items": "Items", "has-more": "HasMoreItems"}


def reply(parsed: Any) -> APIResponse[Any]:
    """A page as a call returns it (`with_response`)."""
    return APIResponse(parsed, RawResponse("GET", "https://x.invalid/t", "/t", 200, {}, b""))


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
            return reply(Listing(items, has_more))
        return reply({"Items": items, "HasMoreItems": has_more})

    return call, calls


async def _into(found: list[Any], call: Any, rule: Any) -> None:
    async for item in pages(call, "Thing_Index", rule, (), {}):
        found.append(item)


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
    calls: list[int] = []

    async def call(**kwargs: Any) -> Any:
        calls.append(kwargs["page"])
        return reply({"Items": [1, 2], "HasMoreItems": True})

    found: list[Any] = []
    with pytest.raises(APIResponseValidationError, match="page 2 repeats page 1"):
        await _into(found, call, RULE)
    assert found == [1, 2]  # yielded once, then the error
    assert calls == [1, 2]


async def test_a_server_that_cycles_through_pages_never_loops(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(_pages, "MAX_PAGES", 10)

    async def call(**kwargs: Any) -> Any:
        return reply({"Items": [kwargs["page"] % 3], "HasMoreItems": True})

    found: list[Any] = []
    with pytest.raises(APIResponseValidationError, match="more than 10 pages"):
        await _into(found, call, RULE)
    assert found == [1, 2, 0, 1, 2, 0, 1, 2, 0, 1]


@pytest.mark.parametrize("rule", [RULE, {**RULE, "has-more": None}], ids=["more", "no more"])
async def test_a_server_that_ignores_the_page_number_and_changes_items_never_loops(
    monkeypatch: pytest.MonkeyPatch, rule: dict[str, Any]
) -> None:
    """Each page told apart by a timestamp: repeats were looked for by content, so it
    looped for ever."""
    monkeypatch.setattr(_pages, "MAX_PAGES", 25)
    calls: list[int] = []

    async def call(**kwargs: Any) -> Any:
        calls.append(kwargs["page"])
        return reply({"Items": [{"Id": 1, "fetchedAt": len(calls)}], "HasMoreItems": True})

    found: list[Any] = []
    with pytest.raises(APIResponseValidationError, match="more than 25 pages"):
        await _into(found, call, rule)
    assert len(found) == 25
    assert calls == list(range(1, 26))


def test_the_page_cap_is_ten_thousand() -> None:
    assert _pages.MAX_PAGES == 10_000


async def test_equal_pages_apart_are_read() -> None:
    """Page 3 equal to page 1 raised 'page 3 repeats page 1' (or ended the iteration
    without a "more" member): pages that are not next to each other may be equal."""
    pages_of = {1: ["A"], 2: ["B"], 3: ["A"], 4: ["C"]}
    call, _ = server(pages_of)
    assert await _all(call, RULE) == ["A", "B", "A", "C"]
    no_more = {k: v for k, v in RULE.items() if k != "has-more"}
    call, _ = server(pages_of)
    assert await _all(call, no_more) == ["A", "B", "A", "C"]


async def test_without_a_more_member_a_repeated_page_ends_cleanly() -> None:
    rule = {k: v for k, v in RULE.items() if k != "has-more"}

    async def call(**kwargs: Any) -> Any:  # past the end, the last page again
        return reply({"Items": [min(kwargs["page"], 3)]})

    assert await _all(call, rule) == [1, 2, 3]


async def test_an_empty_page_while_more_is_said_to_follow_does_not_end_short() -> None:
    """It ended there in silence: the pages after it were never read."""
    call, calls = server({1: [1, 2], 2: [], 3: [3]}, more=True)
    found: list[Any] = []
    with pytest.raises(APIResponseValidationError, match="page 2 has no items while"):
        await _into(found, call, RULE)
    assert found == [1, 2]
    assert [c["page"] for c in calls] == [1, 2]


async def test_a_page_number_that_is_no_integer_is_refused_before_sending() -> None:
    call, calls = server({1: [1]})
    with pytest.raises(InvalidRequestError, match="integer page number"):
        await _all(call, RULE, page="2")
    assert calls == []


async def test_a_last_page_without_items_ends() -> None:
    async def call(**kwargs: Any) -> Any:
        return reply({"Items": None, "HasMoreItems": False} if kwargs["page"] == 2 else {})

    assert await _all(call, RULE, page=2) == []
    assert await _all(call, RULE) == []  # no member at all, and no "more"


@pytest.mark.parametrize(
    "page_two", [{"Items": None, "HasMoreItems": True}, {"HasMoreItems": True}]
)
async def test_a_page_without_items_while_more_follow_does_not_end_short(
    page_two: dict[str, Any],
) -> None:
    """It ended after page 1 in silence: pages 3 and on were never read."""

    async def call(**kwargs: Any) -> Any:
        if kwargs["page"] == 2:
            return reply(page_two)
        return reply({"Items": [kwargs["page"]], "HasMoreItems": True})

    found: list[Any] = []
    with pytest.raises(APIResponseValidationError, match="page 2 has no Items while"):
        await _into(found, call, RULE)
    assert found == [1]


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
