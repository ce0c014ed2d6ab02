"""Turning a call's arguments into a request, or into an InvalidRequestError.

Path parameters are checked and percent-encoded so that no value can change the
request path; bodies (generated models or plain JSON-shaped values) are checked
against the document's own schema. Every problem is collected before raising,
and nothing is sent when there is one.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from enum import Enum
from typing import TYPE_CHECKING, Any
from urllib.parse import quote

from edgedelivery_openapi.types import UNSET, Unset

from ._exceptions import InvalidRequestError
from ._http import header_problem
from ._schema import Operation, Parameter, Problem, deref, operations, validate

if TYPE_CHECKING:
    from ._call import Call

_INT64_LOW, _INT64_HIGH = -(2**63), 2**63 - 1


@dataclass(slots=True)
class Prepared:
    """A checked call, ready for the engine."""

    operation: Operation | None  # None for `client.request`
    method: str
    target: str  # the encoded path, with its query string
    headers: dict[str, str]
    content: bytes | None
    requires_key: bool
    content_type: str | None = None  # the body's media type when not application/json


def prepare_call(call: Call[Any]) -> Prepared:
    """Check and encode a call of the document, or raise InvalidRequestError."""
    if call.method is not None:
        return prepare_raw(call)
    op = operations().get(call.operation_id)
    if op is None:
        raise InvalidRequestError(
            call.operation_id, [Problem("", "is not an operation of the document")]
        )
    problems: list[Problem] = []
    path = op.path
    for name, schema, digits in op.path_params:
        value = call.path.get(name)
        if digits and type(value) is int and _INT64_LOW <= value <= _INT64_HIGH:
            encoded = str(value)  # the common case, cheaply
        else:
            encoded = encode_path_value(name, value, schema, problems)
        path = path.replace("{" + name + "}", encoded)
    query = ""
    if op.query_params or call.query:
        query = encode_query(op.query_params, call.query, problems)
    headers: dict[str, str] = {}
    if op.header_params or call.headers:
        headers = encode_headers(op.header_params, call.headers, problems)
    if op.cookie_params or call.cookies:
        cookie = encode_cookies(op.cookie_params, call.cookies, problems)
        if cookie:
            headers["Cookie"] = cookie
    content = None
    if call.body is None and not op.body_required:
        pass  # a body the document does not require, not given: none is sent
    elif op.body_kind != "json":
        content = encode_raw_body(op.body_kind, call.body, problems)
    elif op.body_schema is not None:
        content = encode_body(op.body_schema, call.body, problems)
    media = op.body_media
    if content is not None and media is not None and media.lower().startswith("multipart/"):
        media = multipart_media(media, content, problems)
    if problems:
        raise InvalidRequestError(op.operation_id, problems)
    return Prepared(op, op.method, path + query, headers, content, op.requires_key, media)


def multipart_media(media: str, content: bytes, problems: list[Problem]) -> str:
    """`multipart/...; boundary=B` for a multipart body the caller built, B read from its
    first line (`--B`): the bare media type was sent, which no server can split."""
    if "boundary=" in media.lower():
        return media
    first = content.split(b"\r\n", 1)[0]
    boundary = first[2:].decode("ascii", errors="replace")
    if not first.startswith(b"--") or not re.fullmatch(r"[0-9A-Za-z'()+_,\-./:=?]{1,70}", boundary):
        problems.append(
            Problem("", f"must be a {media} body that starts with its boundary line (--BOUNDARY)")
        )
        return media
    return f"{media}; boundary={boundary}"


def prepare(
    operation_id: str, path_values: Mapping[str, object], body: Any = None
) -> tuple[Operation, str, bytes | None]:
    """(operation, encoded path, JSON bytes) for a call, or raise InvalidRequestError."""
    from ._call import Call

    prepared = prepare_call(Call(operation_id, object, path=path_values, body=body))
    assert prepared.operation is not None
    return prepared.operation, prepared.target, prepared.content


def encode_body(schema: dict[str, Any], body: Any, problems: list[Problem]) -> bytes | None:
    """JSON bytes of a body valid for `schema` (collecting problems)."""
    from ._call import KeywordBody

    body_problems: list[Problem] = []
    try:
        wire = to_wire(body, "", body_problems)
    except RecursionError:
        problems.append(Problem("", "is nested too deeply (or contains itself)"))
        return None
    if isinstance(body, KeywordBody) and isinstance(wire, dict):
        wire = _drop_unsendable_nulls(schema, wire)
    flagged = {problem.field for problem in body_problems}
    body_problems.extend(
        p for p in validate(schema, wire, exact_integers=True) if p.field not in flagged
    )
    content = None
    if not body_problems:
        try:
            content = json.dumps(wire, allow_nan=False, separators=(",", ":")).encode()
        except (TypeError, ValueError) as exc:
            body_problems.append(Problem("", f"cannot be sent as JSON: {exc}"))
    problems.extend(body_problems)
    return content


def encode_raw_body(kind: str, body: Any, problems: list[Problem]) -> bytes | None:
    """A body the document declares as text (from a str) or binary (from bytes or a file)."""
    if body is None:
        return None
    if kind == "text":
        if isinstance(body, str):
            return body.encode()
        problems.append(Problem("", f"must be a str (the body is text), not {type(body).__name__}"))
        return None
    if isinstance(body, bytes | bytearray | memoryview):
        return bytes(body)
    read = getattr(body, "read", None)
    if callable(read):
        try:
            data = read()
        except (OSError, ValueError) as exc:
            problems.append(Problem("", f"the file cannot be read: {exc}"))
            return None
        if isinstance(data, bytes):
            return data
    problems.append(
        Problem(
            "", f"must be bytes or a binary file (the body is binary), not {type(body).__name__}"
        )
    )
    return None


def _drop_unsendable_nulls(schema: dict[str, Any], wire: dict[str, Any]) -> dict[str, Any]:
    """Keyword fields given as None: sent as null where nullable, else left out."""
    properties = deref(schema).get("properties", {})
    return {
        name: value
        for name, value in wire.items()
        if value is not None or deref(properties.get(name, {})).get("nullable")
    }


def encode_query(
    params: tuple[Parameter, ...], values: Mapping[str, object], problems: list[Problem]
) -> str:
    """`?a=1&b=true` for the given query values (UNSET left out), checked against the document."""
    known = {param.name: param for param in params}
    for name in values:
        if name not in known:
            problems.append(Problem(name, "is not a query parameter of this operation"))
    parts: list[str] = []
    for param in params:
        value = values.get(param.name, UNSET)
        if isinstance(value, Unset) or value is None:
            if param.required:
                problems.append(Problem(param.name, "is required"))
            continue
        if isinstance(value, Mapping) and param.style in ("form", "deepObject"):
            parts += _object_query(param, value, problems)
            continue
        for item in _parameter_values(param, value, problems, encode=_query_value):
            parts.append(f"{quote(param.name, safe='')}={item}")
    return "?" + "&".join(parts) if parts else ""


def _object_query(
    param: Parameter, value: Mapping[Any, object], problems: list[Problem]
) -> list[str]:
    """An object query parameter's `name=value` parts: `filter[k]=v` (deepObject),
    `k=v` (form, exploded), `filter=k,v,k2,v2` (form, not exploded); its members are
    scalars, checked against the parameter's schema."""
    wire: dict[str, Any] = {}
    for key, item in value.items():
        member = item.value if isinstance(item, Enum) else item
        if not isinstance(key, str) or not isinstance(member, str | int | float | bool):
            shown = type(member).__name__
            problems.append(Problem(param.name, f"member {key!r}: a {shown} cannot be sent here"))
            return []
        wire[key] = _plain(member)
    found = validate(param.schema, wire, exact_integers=True)
    if found:
        problems.extend(Problem(param.name, p.message) for p in found)
        return []
    texts = {key: _scalar_text(member) for key, member in wire.items()}
    if not all(_encodable(text) for pair in texts.items() for text in pair):
        problems.append(Problem(param.name, "must be valid Unicode text (no lone surrogates)"))
        return []
    name, q = quote(param.name, safe=""), _query_value
    if param.style == "deepObject":
        return [f"{name}[{q(key)}]={q(text)}" for key, text in texts.items()]
    if param.explode:
        return [f"{q(key)}={q(text)}" for key, text in texts.items()]
    return [f"{name}=" + ",".join(f"{q(key)},{q(text)}" for key, text in texts.items())]


def encode_headers(
    params: tuple[Parameter, ...], values: Mapping[str, object], problems: list[Problem]
) -> dict[str, str]:
    """Header parameters as strings, checked against the document."""
    headers: dict[str, str] = {}
    for param, texts in _given(params, values, problems):
        text = ",".join(texts)
        if not (text.isascii() and text.isprintable()):
            problems.append(Problem(param.name, "must be printable ASCII"))
            continue
        headers[param.name] = text
    return headers


def _given(
    params: tuple[Parameter, ...], values: Mapping[str, object], problems: list[Problem]
) -> Iterator[tuple[Parameter, list[str]]]:
    """Each header or cookie parameter given, with its texts (simple style: an array's
    items unexploded); one required and not given, or refused, is listed in `problems`."""
    for param in params:
        value = values.get(param.name, UNSET)
        if isinstance(value, Unset) or value is None:
            if param.required:
                problems.append(Problem(param.name, "is required"))
            continue
        texts = _parameter_values(param, value, problems, explode=False)
        if texts:  # (else refused: a problem is listed)
            yield param, texts


def encode_cookies(
    params: tuple[Parameter, ...], values: Mapping[str, object], problems: list[Problem]
) -> str:
    """Cookie parameters as one `Cookie` header value (`a=1; b=x`), checked against the
    document. A value RFC 6265 does not allow in a cookie (a space, `"`, `,`, `;`, `\\`,
    control or non-ASCII characters; so also an array of more than one item) is refused,
    as is a name that is no token: nothing is sent."""
    pairs: list[str] = []
    for param, texts in _given(params, values, problems):
        if not _COOKIE_NAME.fullmatch(param.name):
            problems.append(Problem(param.name, "is not a name a cookie may have (RFC 6265)"))
            continue
        text = texts[0]
        if not _COOKIE_VALUE.fullmatch(text):
            problems.append(
                Problem(
                    param.name,
                    "cannot be sent in a cookie (RFC 6265: printable ASCII without space,"
                    " double quote, comma, semicolon or backslash)",
                )
            )
            continue
        pairs.append(f"{param.name}={text}")
    return "; ".join(pairs)


# RFC 6265, section 4.1.1: cookie-name is a token (RFC 2616), cookie-value is cookie-octets.
_COOKIE_NAME = re.compile(r"[!#$%&'*+\-.^_`|~0-9A-Za-z]+")
_COOKIE_VALUE = re.compile(r"[\x21\x23-\x2B\x2D-\x3A\x3C-\x5B\x5D-\x7E]*")


def _parameter_values(
    param: Parameter,
    value: object,
    problems: list[Problem],
    *,
    explode: bool | None = None,
    encode: Callable[[str], str] | None = None,
) -> list[str]:
    """The serialized value(s) of one parameter, each value `encode`d; arrays per explode."""
    wire = value
    if isinstance(value, Enum):
        wire = value.value
    elif isinstance(value, Sequence) and not isinstance(value, str | bytes | bytearray):
        wire = [item.value if isinstance(item, Enum) else item for item in value]
    elif isinstance(value, Mapping | bytes | bytearray):
        problems.append(Problem(param.name, f"a {type(value).__name__} cannot be sent here"))
        return []
    found = validate(param.schema, _plain(wire), exact_integers=True)
    if found:
        problems.extend(Problem(param.name, p.message) for p in found)
        return []
    plain = [_scalar_text(item) for item in (wire if isinstance(wire, list) else [wire])]
    if not all(_encodable(text) for text in plain):
        problems.append(Problem(param.name, "must be valid Unicode text (no lone surrogates)"))
        return []
    encode = encode or (lambda text: text)
    texts = [encode(text) for text in plain]
    if isinstance(wire, list):
        # explode false: one `name=a,b` (style form: the commas themselves not encoded;
        # pipeDelimited `a%7Cb`, spaceDelimited `a%20b`)
        if param.explode if explode is None else explode:
            return texts
        return [(encode(param.delimiter) if param.delimiter != "," else ",").join(texts)]
    return texts


def _query_value(text: str) -> str:
    return quote(text, safe="")


def _plain(value: Any) -> Any:
    """int/str/float subclasses as the plain values they stand for."""
    if isinstance(value, bool):
        return bool(value)
    if isinstance(value, int):
        return int(value)
    if isinstance(value, float):
        return float(value)
    if isinstance(value, str):
        return str.__str__(value)  # its text: a subclass's str() may say another
    if isinstance(value, list):
        return [_plain(item) for item in value]
    return value


def _scalar_text(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(int(value))
    if isinstance(value, float):
        return repr(float(value))
    if isinstance(value, str):
        return str.__str__(value)  # its text: str() of a (str, Enum) member is "Zone.MAIN"
    return str(value)


def prepare_raw(call: Call[Any]) -> Prepared:
    """`client.request(...)`: a path of the API, any query and JSON body, checked for safety."""
    method = call.method.upper() if isinstance(call.method, str) else ""
    problems: list[Problem] = []
    path = call.raw_path
    if not isinstance(path, str) or not path.startswith("/") or path.startswith("//"):
        problems.append(Problem("path", "must be a path of the API starting with one '/'"))
        path = "/"
    elif not (path.isascii() and path.isprintable()) or "?" in path or "#" in path:
        problems.append(
            Problem("path", "must be printable ASCII without '?' or '#': pass params= for a query")
        )
    elif any(_dots(part) for part in path.split("/")):
        problems.append(
            Problem("path", "must not contain '.' or '..' segments (nor %2E for a dot)")
        )
    if not (method.isascii() and method.isalpha()):
        problems.append(Problem("method", f"{call.method!r} is not an HTTP method"))
    parts: list[str] = []
    if not isinstance(call.query, Mapping):
        problems.append(Problem("params", "must be a mapping"))
    else:
        for name, value in call.query.items():
            if not isinstance(name, str):
                problems.append(Problem("params", f"names must be strings, not {name!r}"))
                continue
            items = (
                list(value)
                if isinstance(value, Sequence) and not isinstance(value, str | bytes)
                else [value]
            )
            for item in items:
                text = _raw_query_text(name, item, problems)
                if text is not None:
                    parts.append(f"{quote(name, safe='')}={quote(text, safe='')}")
    headers: dict[str, str] = {}
    if not isinstance(call.headers, Mapping):
        problems.append(Problem("headers", "must be a mapping of strings"))
    else:
        for name, value in call.headers.items():
            problem = header_problem(name, value)
            if problem is not None:
                problems.append(Problem("headers", problem))
            else:
                headers[str.__str__(name)] = str.__str__(value)  # the text checked
    content = None
    if call.body is not None:
        body_problems: list[Problem] = []
        try:
            wire = to_wire(call.body, "", body_problems)
            content = json.dumps(wire, allow_nan=False, separators=(",", ":")).encode()
        except (TypeError, ValueError, RecursionError) as exc:
            body_problems.append(Problem("json", f"cannot be sent as JSON: {exc}"))
        problems.extend(body_problems)
    if problems:
        raise InvalidRequestError(f"{method} {call.raw_path}", problems)
    target = quote(path, safe="/%:@!$&'()*+,;=-._~") + ("?" + "&".join(parts) if parts else "")
    return Prepared(None, method, target, headers, content, False)


def _dots(segment: str) -> bool:
    """Whether a segment is a dot-segment, its dots written or percent-encoded (%2E is a
    dot to a server: RFC 3986 normalizes it, so /a/%2e%2e/b is /b)."""
    return segment.replace("%2e", ".").replace("%2E", ".") in (".", "..")


def _raw_query_text(name: str, item: object, problems: list[Problem]) -> str | None:
    """One value of `client.request(params=...)` as text, or None with a problem listed."""
    if isinstance(item, Enum):
        text = str(item.value)
    elif not isinstance(item, str | int | float):
        problems.append(Problem(name, f"a {type(item).__name__} cannot be sent"))
        return None
    elif isinstance(item, int) and not isinstance(item, bool) and item.bit_length() > 256:
        problems.append(Problem(name, f"a {item.bit_length()}-bit integer is too long to send"))
        return None
    elif isinstance(item, float) and not math.isfinite(item):
        problems.append(Problem(name, f"{item!r} is not a finite number"))
        return None
    else:
        text = _scalar_text(item)
    if not (_encodable(name) and _encodable(text)):
        problems.append(Problem(name, "must be valid Unicode text (no lone surrogates)"))
        return None
    return text


def encode_path_value(
    name: str, value: object, schema: dict[str, Any], problems: list[Problem]
) -> str:
    """The percent-encoded path segment for one parameter (collecting problems)."""
    kind = deref(schema).get("type")
    integer_only = kind == "integer"
    if kind == "boolean":  # as JSON spells it, the one form a path takes
        if isinstance(value, bool):
            return "true" if value else "false"
        if value in ("true", "false"):  # (the command line gives text)
            return str.__str__(value)
        problems.append(Problem(name, f"must be True or False, not {value!r}"[:200]))
    elif isinstance(value, bool):
        problems.append(Problem(name, "must be an identifier, not a boolean"))
    elif isinstance(value, int):
        number = int(value)  # the integer itself, whatever a subclass's str() says
        if not _INT64_LOW <= number <= _INT64_HIGH:
            # (past 4,300 digits, str() itself raises ValueError: name its size instead)
            shown = number if number.bit_length() <= 256 else f"a {number.bit_length()}-bit integer"
            problems.append(Problem(name, f"{shown} is out of the 64-bit integer range"))
            return ""
        return str(number)
    elif integer_only:
        problems.append(Problem(name, f"must be an integer, not {type(value).__name__}"))
    elif not isinstance(value, str):
        problems.append(
            Problem(name, f"must be a string or an integer, not {type(value).__name__}")
        )
    elif not value:
        problems.append(Problem(name, "must not be empty"))
    elif value in (".", ".."):
        problems.append(Problem(name, f"{value!r} is not an identifier"))
    elif not _encodable(value):
        problems.append(Problem(name, "must be valid Unicode text (no lone surrogates)"))
    else:
        # The text checked above, not what a subclass's str() says: a (str, Enum) member's
        # is "Zone.MAIN", and one that says ".." would leave the path.
        return quote(str.__str__(value), safe="")
    return ""


def _encodable(value: str) -> bool:
    try:
        value.encode()
    except UnicodeEncodeError:
        return False
    return True


def to_wire(value: Any, where: str, problems: list[Problem]) -> Any:
    """JSON-shaped data from generated models and plain values; non-JSON values are problems."""
    to_dict = getattr(value, "to_dict", None)
    if callable(to_dict):
        try:
            return to_wire(to_dict(), where, problems)
        except (AttributeError, TypeError, ValueError) as exc:
            problems.append(Problem(where, f"cannot be serialized: {exc}"))
            return None
    if isinstance(value, Mapping):
        out: dict[str, Any] = {}
        for key, item in value.items():
            if not isinstance(key, str):
                problems.append(Problem(where, f"keys must be strings, not {key!r}"))
                continue
            if not key.isascii() and not _encodable(key):
                problems.append(Problem(where, "keys must be valid Unicode text"))
                continue
            out[key] = to_wire(item, f"{where}.{key}" if where else key, problems)
        return out
    if isinstance(value, Sequence) and not isinstance(value, str | bytes | bytearray):
        return [to_wire(item, f"{where}[{i}]", problems) for i, item in enumerate(value)]
    if isinstance(value, float) and not math.isfinite(value):
        problems.append(Problem(where, f"{value} is not a JSON number"))
    elif isinstance(value, str) and not value.isascii() and not _encodable(value):
        problems.append(Problem(where, "must be valid Unicode text (no lone surrogates)"))
    elif value is not None and not isinstance(value, str | int | float):
        kind = type(value).__name__
        problems.append(Problem(where, f"a value of type {kind} cannot be sent as JSON"))
    return value
