"""Reading 2xx replies: JSON, hidden failures, tolerant models, and `APIResponse`."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Generic, NoReturn, Protocol, TypeVar

if TYPE_CHECKING:
    import httpx

from . import _json, _shape
from ._exceptions import AcceptedWithoutResultError, APIResponseValidationError, APIResultError
from ._http import RawResponse
from ._schema import Operation

T = TypeVar("T")
M = TypeVar("M", covariant=True)


class _Model(Protocol[M]):
    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> M: ...


@dataclass(frozen=True, slots=True)
class ListOf:
    """A result that is a JSON array of one model, each item read by `item`: `list[Model]`
    results are typed like `Model` ones (an item that cannot be read, `null` too, is an
    APIResponseValidationError, as in an array inside a model)."""

    item: Any


@dataclass(frozen=True, slots=True)
class APIResponse(Generic[T]):
    """A call's result together with the HTTP reply it came from."""

    parsed: T
    raw: RawResponse

    @property
    def status_code(self) -> int:
        """The HTTP status of the final reply."""
        return self.raw.status

    @property
    def headers(self) -> Mapping[str, str]:
        """The reply's headers (case-insensitive): rate-limit headers, request ids."""
        return self.raw.headers

    @property
    def retries_taken(self) -> int:
        """How many retries this call needed."""
        return self.raw.retries_taken

    @property
    def elapsed(self) -> float:
        """Seconds the final attempt took."""
        return self.raw.elapsed

    @property
    def http_response(self) -> httpx.Response:
        """The reply as an `httpx.Response`."""
        return self.raw.to_httpx()


def json_body(raw: RawResponse) -> Any:
    """The body of a 2xx reply as JSON (None when empty)."""
    if not raw.content or raw.content.isspace():  # no copy of the body
        return None
    try:
        return raw.json()
    except _json.TooDeep as exc:
        text = raw.content[:200].decode("utf-8", errors="replace")
        raise APIResponseValidationError(raw, text, message=f"the reply is {exc}") from None
    except _json.TooManyDigits as exc:  # valid JSON: "not JSON" would mislead
        text = raw.content[:200].decode("utf-8", errors="replace")
        raise APIResponseValidationError(raw, text, message=f"the reply {exc}") from None
    except (ValueError, RecursionError):
        text = raw.content[:200].decode("utf-8", errors="replace")
        raise APIResponseValidationError(raw, text, message="the reply is not JSON") from None


def text_of(raw: RawResponse) -> str:
    """A text reply in its declared charset (UTF-8 when none or unknown)."""
    kind = raw.headers.get("content-type", "")
    charset = "utf-8"
    for part in kind.split(";")[1:]:
        name, _, value = part.strip().partition("=")
        if name.lower() == "charset" and value:
            charset = value.strip('"')
    try:
        return raw.content.decode(charset, errors="replace")
    except LookupError:
        return raw.content.decode("utf-8", errors="replace")


# The members of an ASP.NET (accepted) result object; `location` is an AcceptedResult's.
_RESULT_OBJECT = frozenset(
    {"value", "formatters", "contentTypes", "declaredType", "statusCode", "location"}
)


def check_result(raw: RawResponse, body: Any, value_member: str | None) -> None:
    """Raise for a 2xx reply that carries no result.

    A 202 without the result (empty, an accepted-result object, or no `value` member)
    is AcceptedWithoutResultError. A 204 (No Content: by definition without a body, as
    documents declare it beside a result's 200) and an ASP.NET result object
    (`statusCode` and `declaredType`, no `data`) on another 2xx are APIResultError.
    """
    if raw.status == 204 and body is None:
        raise APIResultError(raw, body, message="204 No Content: the reply carries no result")
    is_object = isinstance(body, Mapping)
    if raw.status == 202:
        accepted_shape = is_object and body.keys() <= _RESULT_OBJECT
        missing = value_member is not None and (not is_object or body.get(value_member) is None)
        if body is None or accepted_shape or missing:
            raise AcceptedWithoutResultError(raw, body)
    if is_object and "statusCode" in body and "declaredType" in body and "data" not in body:
        raise APIResultError(raw, body)


def read_result(operation: Operation | None, raw: RawResponse, parser: Any) -> Any:
    """The value a call returns, by the one rule the README states.

    No declared result: None. Otherwise the body must be JSON. When the success
    schema has `x-sdk-result`, its `failure` conditions raise APIResultError and its
    `value` member (if it names one) is the result. The result must fit the
    document's types (`_shape`), and is then read by `parser`.
    """
    if parser is None:  # no result; a body is tolerated, but not a web page
        if raw.content and raw.content.lstrip()[:1] == b"<":
            text = raw.content[:200].decode("utf-8", errors="replace")
            raise APIResponseValidationError(
                raw, text, message="the reply is markup, not the API's"
            )
        return None
    if operation is not None and operation.reply != "json":
        return raw.content if operation.reply == "binary" else text_of(raw)
    if operation is None:
        body = json_body(raw)
        check_result(raw, body, None)
        return body
    reader = _readers.get(operation.operation_id)
    if reader is None or reader.operation is not operation:
        reader = _readers[operation.operation_id] = _Reader(operation)
    return reader.read(raw, parser)


class _Reader:
    """One operation's result rule, worked out once: the bulk path reads it per reply."""

    __slots__ = ("failures", "nullable", "operation", "schema", "value_member")

    def __init__(self, operation: Operation) -> None:
        rule = operation.result_rule or {}
        self.operation = operation
        self.value_member = str(rule["value"]) if rule.get("value") else None
        self.failures: tuple[Mapping[str, Any], ...] = tuple(rule.get("failure", ()))
        schema = operation.result_schema
        if self.value_member is not None:
            schema = (schema or {}).get("properties", {}).get(self.value_member)
        self.schema: dict[str, Any] | None = schema
        # A result the document lets be null (`nullable: true`, a type list with "null")
        # is None for a JSON null: it was "the result is not a JSON str".
        self.nullable = _nullable(schema) and self.value_member is None

    def read(self, raw: RawResponse, parser: Any) -> Any:
        body = json_body(raw)
        value_member = self.value_member
        check_result(raw, body, value_member)
        for condition in self.failures:
            failed = _failure(condition, body)
            if failed is True:
                raise APIResultError(raw, body)
            if failed:  # ("false" for false: a failure, read as a success)
                raise APIResponseValidationError(
                    raw,
                    body,
                    message=f"{self.operation.operation_id}: the reply's {failed}, so"
                    " whether it reports a failure cannot be told",
                )
        value = body
        if value is None and self.nullable:
            return None
        if value_member is not None:
            value = member(raw, body, value_member)
        schema = self.schema
        if schema is not None and not _shape.fits(schema, value):
            self.refuse(raw, body, value)
        return parse(parser, raw, value)

    def refuse(self, raw: RawResponse, body: Any, value: Any) -> NoReturn:
        """APIResponseValidationError naming the first member of the wrong type."""
        mismatches = _shape.problems(self.schema, value)
        where, expected = mismatches[0] if mismatches else ("", "of the document's types")
        more = f" (and {len(mismatches) - 1} more)" if len(mismatches) > 1 else ""
        raise APIResponseValidationError(
            raw,
            body,
            message=f"{self.operation.operation_id}: the reply's {where or 'body'} "
            f"should be {expected}{more}",
        )


_readers: dict[str, _Reader] = {}


def holds(condition: Mapping[str, Any], body: Any) -> bool:
    """Whether one `failure` condition of `x-sdk-result` holds for a body."""
    return _failure(condition, body) is True


_JSON_TYPES = {bool: "boolean", int: "integer", float: "number", str: "string"}


def _failure(condition: Mapping[str, Any], body: Any) -> bool | str:
    """True when one `failure` condition holds for a body; False when it does not; what
    is wrong when it cannot be told: the member an `equals` condition reads is there,
    not null, and of another JSON type than the value it is compared with
    (`success: "false"` where false reports a failure). One walk of the body: the bulk
    path reads every reply this way."""
    found: Any = body
    for name in condition.get("member", ()):
        if not isinstance(found, Mapping) or name not in found:
            return False
        found = found[name]
    if "equals" in condition:
        expected = condition["equals"]
        if type(found) is type(expected):
            return bool(found == expected)
        if found is None:
            return False
        where = ".".join(str(name) for name in condition.get("member", ()))
        kind = _JSON_TYPES.get(type(expected), type(expected).__name__)
        return f"{where} should be a JSON {kind}, not {_shape._json_name(found)}"
    if "not-in" in condition:
        return found is not None and found not in condition["not-in"]
    if condition.get("non-empty"):
        return bool(found) and not (isinstance(found, str) and not found.strip())
    return False


def _nullable(schema: dict[str, Any] | None) -> bool:
    """Whether the document lets a result be JSON null."""
    if not isinstance(schema, dict):
        return False
    kinds = schema.get("type")
    return schema.get("nullable") is True or (isinstance(kinds, list) and "null" in kinds)


_SCALARS: dict[Any, tuple[type, ...]] = {
    int: (int,),
    float: (int, float),
    str: (str,),
    bool: (bool,),
    dict: (dict,),
    list: (list,),
}


def parse(parser: Any, raw: RawResponse, value: Any) -> Any:
    """A result value read by a model class, a JSON type, or `object` (as is)."""
    if parser is object:
        return value
    if type(parser) is ListOf:
        return _parse_list(parser.item, raw, value)
    kinds = _SCALARS.get(parser)
    if kinds is not None:
        if isinstance(value, kinds) and not (parser is not bool and isinstance(value, bool)):
            return value
        raise APIResponseValidationError(
            raw, value, message=f"the result is not a JSON {parser.__name__}"
        )
    return parse_model(parser, raw, value)


def _parse_list(item: Any, raw: RawResponse, value: Any) -> list[Any]:
    if not isinstance(value, list):
        raise APIResponseValidationError(raw, value, message="the result is not a JSON array")
    found: list[Any] = []
    for index, data in enumerate(value):
        try:
            found.append(parse_model(item, raw, data))
        except APIResponseValidationError:
            name = getattr(item, "__name__", "model")
            message = f"item {index} of the result cannot be read as {name}"
            raise APIResponseValidationError(raw, value, message=message) from None
    return found


def member(raw: RawResponse, body: Any, name: str) -> Any:
    """`body[name]` of a JSON object, or APIResponseValidationError."""
    found = body.get(name) if isinstance(body, Mapping) else None
    if found is None:
        what = _nothing(raw, body) or f"has no {name!r} member"
        raise APIResponseValidationError(raw, body, message=f"the reply {what}")
    return found


def _nothing(raw: RawResponse, body: Any) -> str | None:
    """What a reply holds when it holds nothing: no body at all, or JSON null."""
    if body is not None:
        return None
    return "is JSON null" if raw.content and not raw.content.isspace() else "has no body"


def parse_model(model: type[_Model[T]], raw: RawResponse, data: Any) -> T:
    """`model.from_dict(data)`; a body that does not fit raises APIResponseValidationError.

    Unknown fields are kept (`additional_properties`). Every member may be null (read as
    None; an absent one is UNSET): the generated models are built that way.
    """
    if isinstance(data, Mapping):
        try:
            return model.from_dict(data)
        except (KeyError, TypeError, ValueError, AttributeError, IndexError, RecursionError):
            pass
    name = getattr(model, "__name__", "model")
    nothing = _nothing(raw, data)
    if nothing is not None:  # ("cannot be read as ScriptVariable" said less)
        message = f"the reply {nothing}, where a {name} is documented"
        raise APIResponseValidationError(raw, data, message=message)
    raise APIResponseValidationError(raw, data, message=f"the reply cannot be read as {name}")
