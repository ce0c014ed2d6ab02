"""Every method's docstring says what the SDK does, for every operation of the document.

What it returns, what it raises (the documented statuses as the exceptions the runtime
makes of them), what it retries (as the runtime's RetryPolicy decides), whether it needs
the key, and what it tolerates; nothing of what the API reference leaves out, which the
document's descriptions note for maintainers.
"""

from __future__ import annotations

import re

import pytest

from edgedelivery_async import APIConnectionError, EdgeDeliveryClient, RetryPolicy
from edgedelivery_async._exceptions import status_error
from edgedelivery_async._http import RawResponse

from ._document import Operation, operations

OPERATIONS = operations()


def docstring(operation: Operation) -> str:
    client = EdgeDeliveryClient("edk-doc-1", "https://api.example.invalid")
    doc = client.operation(operation.operation_id).__doc__
    assert doc is not None
    return " ".join(doc.split())


def runtime_error(status: int) -> str:
    raw = RawResponse("GET", "https://api.example.invalid/x", "/x", status, {}, b"")
    return type(status_error(raw, None)).__name__


@pytest.fixture(params=OPERATIONS, ids=[o.operation_id for o in OPERATIONS])
def operation(request: pytest.FixtureRequest) -> Operation:
    found: Operation = request.param
    return found


def test_no_gap_of_the_reference(operation: Operation) -> None:
    text = docstring(operation)
    assert "the reference" not in text
    assert "not shown" not in text


def test_it_says_what_it_returns_and_raises(operation: Operation) -> None:
    text = docstring(operation)
    assert "Returns: " in text
    assert "Raises: InvalidRequestError: " in text
    for name in ("APIStatusError", "APIConnectionError", "APIResponseValidationError"):
        assert f" {name}: " in text
    assert "Tolerated in replies: " in text


def test_the_key(operation: Operation) -> None:
    text = docstring(operation)
    assert ("ConfigurationError: the client has no access key" in text) == operation.requires_key
    assert ("Needs the client's access key." in text) == operation.requires_key


def test_documented_statuses_are_the_runtimes_exceptions(operation: Operation) -> None:
    text = docstring(operation)
    documented = [int(s) for s in operation.op["responses"] if str(s).isdigit() and int(s) >= 400]
    for status in documented:
        assert f" {runtime_error(status)}: {status}" in text, status
    assert len(re.findall(r" (\w+Error): (\d{3})\b", text)) == len(documented)


def test_retries_are_the_runtimes(operation: Operation) -> None:
    text = docstring(operation)
    found = re.search(r"Retried \(up to the client's `max_retries`\) (.*?)\.", text)
    assert found is not None, text
    said = {int(s) for s in re.findall(r"\b\d{3}\b", found[1])}
    method = operation.method.upper()
    policy = RetryPolicy()
    assert said == {s for s in range(100, 600) if policy.retryable_status(method, s)}
    # A connection failure after the request went out is retried only for the methods the
    # runtime retries as idempotent.
    sent = APIConnectionError("reset", method=method, path=operation.path, request_sent=True)
    retried = policy.retryable_error(method, sent)
    assert ("after connection failures, timeouts" in found[1]) == retried
