"""The per-operation commands, generated from the OpenAPI document.

One group per resource (tag), one command per operation (`_document`):

- path parameters are arguments (integers are ids: positive, checked before sending);
- query, header and cookie parameters and body fields are options: strings, integers and
  numbers typed, booleans as `--x/--no-x` (not sent unless given), enums as choices,
  arrays and objects as JSON text;
- `--body FILE` (`-` for stdin) gives the whole JSON body instead of field options; a
  text (`text/...`) or binary body is the file's UTF-8 text or raw bytes;
- the result is printed as JSON on stdout (models through `to_dict()`).

A command runs the generated method (`client.operation(operation_id)`), so it has
the SDK's validation, retries, timeouts and errors. `_overrides` adds the few
conveniences the document cannot say, keyed by operation id; nothing here names an
operation. The SDK's client, transport and validation are imported only when a command
runs, never for `--help`.
"""

from __future__ import annotations

import inspect
import json
import math
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Annotated, Any

import typer
from typer.core import TyperCommand

from . import _clicklib as click
from . import _output
from ._document import GroupSpec, Input, OperationSpec, groups
from ._output import INTERRUPTED, print_json, read_bytes, read_json, read_text, say

if TYPE_CHECKING:
    from ._overrides import Override

CONTEXT_SETTINGS: dict[str, Any] = {"help_option_names": ["-h", "--help"]}
MAX_ID = 2**63 - 1
_NEGATIVE_NUMBER = re.compile(r"-\d+(?:\.\d*)?")
_JSON_KINDS = {"array": list, "object": dict}


def _one_kind(schema: Mapping[str, Any]) -> str | None:
    """The schema's one type besides `null`: `type` is a name or (OpenAPI 3.1) a list of
    names (`[integer, 'null']` is `integer`); None for several or none. A list was looked
    up as a name ("unhashable type: 'list'")."""
    kind = schema.get("type")
    kinds = [k for k in kind if k != "null"] if isinstance(kind, list) else [kind]
    return kinds[0] if len(kinds) == 1 and isinstance(kinds[0], str) else None


# ------------------------------------------------------------ parameter types
class PositiveId(click.ParamType):
    """An id: a positive integer (or one of the document's `minimum` or more, see
    `id_type`), refused before anything is sent otherwise."""

    name = "id"

    def __init__(self, minimum: int = 1) -> None:
        self.minimum = minimum

    @property
    def rule(self) -> str:
        """What an id is, for messages and help."""
        if self.minimum == 1:
            return "ids are positive integers (1 or more)"
        return f"ids here are integers of {self.minimum} or more"

    def get_metavar(self, param: click.Parameter, ctx: click.Context) -> str | None:
        return ""  # the argument's own metavar says it; no `<int>` placeholder

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> int:
        if isinstance(value, int) and not isinstance(value, bool):
            number = value
        else:
            text = str(value).strip()
            # ASCII digits only, not Arabic-Indic or fullwidth ones
            if not re.fullmatch(r"[+-]?[0-9]+", text):
                self.fail(f"{value!r} is not an id: {self.rule.split(' (')[0]}", param, ctx)
            digits = text.lstrip("+-").lstrip("0") or "0"  # (int() refuses past 4,300
            if len(digits) > 19:  # digits, leading zeros too)
                self.fail(f"{text[:40]}... is beyond the 64-bit id range", param, ctx)
            number = -int(digits) if text.startswith("-") else int(digits)
        if number < self.minimum:
            self.fail(f"{number} is not an id: {self.rule}", param, ctx)
        if number > MAX_ID:
            self.fail(f"{number} is beyond the 64-bit id range", param, ctx)
        return number


def id_type(schema: dict[str, Any]) -> PositiveId:
    """The id type of an integer path parameter: its schema's `minimum` when it gives one
    (an `exclusiveMinimum` adds 1), else 1: ids are positive integers where the document
    says no more (the shipped document's, and the string ids the CLI reads as integers).
    `minimum: 0` takes 0, which was refused ("ids are positive integers")."""
    low = schema.get("minimum")
    if isinstance(low, bool) or not isinstance(low, int | float):
        return PositiveId()
    bound = math.floor(low) + 1 if schema.get("exclusiveMinimum") is True else math.ceil(low)
    return PositiveId(max(bound, -MAX_ID))


_INTEGER_TEXT = re.compile(r"[+-]?[0-9]+")  # ASCII digits only
_NUMBER_TEXT = re.compile(r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")
_MOST_DIGITS = 4300  # int() reads no longer a string (sys.int_info.default_max_str_digits)


def _ascii_number(kind: str, value: Any, fail: Callable[[str], Any]) -> Any:
    """The text of an integer or number option as its value, before click's range check.

    click's INT and FLOAT read what int() and float() read: Arabic-Indic or fullwidth
    digits (`--count` with two Arabic-Indic digits sent 10), underscores (`1_0`), `nan`,
    `inf` and `1e999` (sent on to be refused as no JSON number), and a text of over 4,300
    digits was echoed whole. Here a value is ASCII decimal and finite, as an id is, and
    a long one is shown shortened. `fail` raises the usage error."""
    if not isinstance(value, str):
        return value
    text = value.strip()
    shown = repr(text if len(text) <= 40 else text[:37] + "...")
    if kind == "integer":
        if not _INTEGER_TEXT.fullmatch(text):
            fail(f"{shown} is not an integer (ASCII digits)")
        digits = text.lstrip("+-").lstrip("0") or "0"
        if len(digits) > _MOST_DIGITS:
            fail(f"{shown} has more than {_MOST_DIGITS:,} digits")
        return -int(digits) if text.startswith("-") else int(digits)
    if not _NUMBER_TEXT.fullmatch(text):
        fail(f"{shown} is not a number (ASCII digits, such as 1.5 or 2e3)")
    number = float(text)
    if not math.isfinite(number):
        fail(f"{shown} is beyond the range of a number")
    return number


class Integer(click.IntParamType):
    """An integer option: ASCII digits (see `_ascii_number`)."""

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        value = _ascii_number("integer", value, lambda text: self.fail(text, param, ctx))
        return super().convert(value, param, ctx)


class IntegerRange(click.IntRange):
    """An integer option with the schema's minimum or maximum."""

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        value = _ascii_number("integer", value, lambda text: self.fail(text, param, ctx))
        return super().convert(value, param, ctx)


# `--concurrency` of the bulk commands (`shield dump`, `demo`).
Concurrency = Annotated[
    int,
    typer.Option(
        "--concurrency",
        "-c",
        metavar="N",
        click_type=IntegerRange(min=1),
        help="Requests in flight at most.",
    ),
]


class Number(click.FloatParamType):
    """A number option: ASCII decimal, finite (see `_ascii_number`)."""

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        value = _ascii_number("number", value, lambda text: self.fail(text, param, ctx))
        return super().convert(value, param, ctx)


class NumberRange(click.FloatRange):
    """A number option with the schema's minimum or maximum."""

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        value = _ascii_number("number", value, lambda text: self.fail(text, param, ctx))
        return super().convert(value, param, ctx)


def number_type(kind: str, schema: Mapping[str, Any]) -> click.ParamType:
    """The type of an integer or number option, with the schema's bounds when it gives
    them (click shows them in the help: `[1<=x<=10]`)."""
    low, high = (
        None if isinstance(bound, bool) or not isinstance(bound, int | float) else bound
        for bound in (schema.get("minimum"), schema.get("maximum"))
    )
    if kind == "integer":
        return IntegerRange(low, high) if (low, high) != (None, None) else Integer()
    return NumberRange(low, high) if (low, high) != (None, None) else Number()


class PlainText(click.ParamType):
    """A string argument, shown without a `<str>` placeholder."""

    name = "text"

    def get_metavar(self, param: click.Parameter, ctx: click.Context) -> str | None:
        return ""

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> str:
        return str(value)


class Choices(click.ParamType):
    """One of the values an enum allows, shown as `[a|b|c]`."""

    name = "choice"

    def __init__(self, choices: list[str]) -> None:
        self.choices = choices

    def get_metavar(self, param: click.Parameter, ctx: click.Context) -> str | None:
        return "[" + "|".join(self.choices) + "]"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> str:
        if str(value) not in self.choices:
            allowed = ", ".join(map(repr, self.choices))
            self.fail(f"{value!r} is not one of {allowed}", param, ctx)
        return str(value)


class Command(TyperCommand):
    """A command whose usage line names its arguments plainly (`APP_ID`, `[KEY=VALUE...]`),
    and which says what a negative number is when one is given for an id."""

    def collect_usage_pieces(self, ctx: click.Context) -> list[str]:
        pieces = [self.options_metavar] if self.options_metavar else []
        for param in self.get_params(ctx):
            if param.param_type_name != "argument":
                continue
            name = param.metavar or (param.name or "").upper()
            if param.nargs != 1 and not name.endswith("..."):
                name += "..."
            pieces.append(name if param.required else f"[{name}]")
        return pieces

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        given = list(args)  # (click's parser consumes `args`)
        try:
            return super().parse_args(ctx, args)
        except click.NoSuchOption as error:
            # click names only the first two characters of "-31" ("-3"): name the token
            token = next(
                (arg for arg in given if arg.startswith(error.option_name)), error.option_name
            )
            ids = [param.type for param in self.params if isinstance(param.type, PositiveId)]
            if _NEGATIVE_NUMBER.fullmatch(token) and ids:
                raise click.UsageError(f"{token} is not an id: {ids[0].rule}", ctx) from None
            raise


# ---------------------------------------------------------------- invocation
@dataclass
class Invocation:
    """One run of a generated command: the values given, then the call they make.

    An override's `prepare` may change `fields`, `given` and `body` before the call
    is assembled; its `output` reads `args` and `kwargs` after it.
    """

    ctx: typer.Context
    operation: OperationSpec
    path: list[Any]
    fields: dict[str, Any]  # Python name -> value, for the query parameters and fields given
    given: dict[str, str]  # Python name -> the option that gave it (for messages)
    body: Any = None  # the whole body (from --body), when given
    body_given: bool = False
    body_label: str = "--body"
    extras: dict[str, Any] = field(default_factory=dict)  # the override's own parameters
    args: list[Any] = field(default_factory=list)
    kwargs: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class Bound:
    """How one input of the document is read from the command line."""

    input: Input
    param: str  # the command function's parameter
    label: str  # how messages name it: PULL_ZONE_ID, --hostname, --on/--off
    json_kind: str | None = None  # "array", "object" or "any": given as JSON text
    choices: Mapping[str, Any] | None = None  # enums: the text given -> the value sent


@dataclass(frozen=True, slots=True)
class Param:
    """One parameter of a command function, as typer reads it."""

    name: str
    annotation: Any
    default: Any = None


@dataclass
class GeneratedCommand:
    """The command of one operation: its parameters, and how a run becomes a call."""

    operation: OperationSpec
    override: Override | None
    bound: list[Bound] = field(default_factory=list)
    params: list[Param] = field(default_factory=list)
    extras: list[Param] = field(default_factory=list)  # the override's own parameters
    body_param: str | None = None  # the --body parameter, when the operation has a body
    body_label: str = "--body"
    taken: set[str] = field(default_factory=lambda: set(CONTEXT_SETTINGS["help_option_names"]))

    # ------------------------------------------------------------- building
    @classmethod
    def build(cls, operation: OperationSpec, override: Override | None) -> GeneratedCommand:
        self = cls(operation, override)
        decls = override.body_options if override is not None else ("--body",)
        self.body_label = "/".join(d for d in decls if d.startswith("--"))
        if operation.has_body:
            self.taken.update(decls)
        for number, item in enumerate(operation.path_params):
            self._argument(number, item)
        if override is not None:
            self.extras += override.extra_arguments
            self.params += override.extra_arguments
        options = (
            *operation.query_params,
            *operation.header_params,
            *operation.cookie_params,
            *operation.fields,
        )
        for number, item in enumerate(options):
            self._option(number, item)
        if operation.has_body:
            self._body()
        if override is not None:
            self.extras += override.extra_options
            self.params += override.extra_options
        return self

    def _argument(self, number: int, item: Input) -> None:
        integer = _one_kind(item.schema) == "integer" or (
            self.override is not None and item.python in self.override.integer_ids
        )
        name = f"path_{number}"
        metavar = item.option
        id_kind = id_type(item.schema)
        what = " A positive integer." if id_kind.minimum == 1 else ""
        what = what or f" An integer of {id_kind.minimum} or more."
        help_text = item.description + (what if integer else "")
        self.params.append(
            Param(
                name,
                Annotated[
                    int if integer else str,
                    typer.Argument(
                        metavar=metavar,
                        click_type=id_kind if integer else PlainText(),
                        help=help_text.strip() or None,
                        show_default=False,
                    ),
                ],
                ...,
            )
        )
        self.bound.append(Bound(item, name, metavar))

    def _option(self, number: int, item: Input) -> None:
        schema = item.schema
        kind = _one_kind(schema)
        name = f"option_{number}"
        decls: tuple[str, ...] = (item.option,)
        if self.override is not None and item.python in self.override.options:
            decls = self.override.options[item.python]
        else:
            decls = (self._free(item, boolean=kind == "boolean"),)
        help_parts = [item.description] if item.description else []
        if self.override is not None and item.python in self.override.option_help:
            help_parts = [self.override.option_help[item.python]]
        json_kind: str | None = None
        choices: dict[str, Any] | None = None
        option: Any
        annotation: Any
        if "enum" in schema and kind in ("string", "integer", "number", None):
            choices = {str(value): value for value in schema["enum"] if value is not None}
            annotation = str | None
            option = typer.Option(*decls, click_type=Choices(list(choices)))
        elif kind == "boolean":
            if len(decls) == 1 and "/" not in decls[0]:
                decls = (f"{decls[0]}/--no-{decls[0].removeprefix('--')}",)
            annotation = bool | None
            option = typer.Option(*decls)
        elif kind in ("string", "integer", "number"):
            scalar: type = {"string": str, "integer": int, "number": float}[kind]
            annotation = scalar | None
            typed: dict[str, Any] = {}
            if kind != "string":  # ASCII digits, within the schema's bounds
                typed = {"click_type": number_type(kind, schema)}
            # The metavar names the kind of value (the option already names the field): a
            # long field name shown twice would push the option's own name out of the help.
            metavar = {"string": "TEXT", "integer": "INTEGER", "number": "NUMBER"}[kind]
            option = typer.Option(*decls, metavar=metavar, **typed)
        else:  # arrays, objects, anything else: JSON text
            json_kind = kind if kind in _JSON_KINDS else "any"
            annotation = str | None
            what = {"array": "A JSON array", "object": "A JSON object"}.get(json_kind, "JSON")
            help_parts.append(f"{what}.")
            option = typer.Option(*decls, metavar="JSON")
        if item.required:
            help_parts.append(
                "Required." if item.kind != "field" else f"Required (here or in {self.body_label})."
            )
        if "default" in schema:
            help_parts.append(f"Default: {json.dumps(schema['default'])}.")
        option.help = " ".join(part.strip() for part in help_parts if part.strip()) or None
        option.show_default = False
        label = "/".join(d for d in decls if d.startswith("--")) or decls[0]
        self.params.append(Param(name, Annotated[annotation, option], None))
        self.bound.append(Bound(item, name, label, json_kind, choices))

    def _free(self, item: Input, *, boolean: bool) -> str:
        """The option's name, or one that no other option of the command takes (`--help`,
        `--body`, a flag's `--no-` form): `--help-query`, `--body-field`, then numbered.
        A query parameter named `help` took --help, and a field `Body` the --body FILE."""
        kind = item.kind
        candidates = [item.option, f"{item.option}-{kind}"]
        candidates += [f"{item.option}-{kind}-{n}" for n in range(2, 100)]
        for option in candidates:
            names = {option, f"--no-{option.removeprefix('--')}"} if boolean else {option}
            if not names & self.taken:
                self.taken.update(names)
                return option
        raise ValueError(f"no free option name for {item.option}")  # (100 of one name)

    def _body(self) -> None:
        override = self.override
        decls = override.body_options if override is not None else ("--body",)
        if override is not None and override.body_help:
            help_text = override.body_help
        elif self.operation.body_kind == "text":
            help_text = "The whole body, as the UTF-8 text of a file (- for stdin)."
        elif self.operation.body_kind == "binary":
            help_text = "The whole body, as the bytes of a file (- for stdin)."
        elif not self.operation.fields:
            help_text = "The whole JSON body, from a file (- for stdin)."
        else:
            help_text = (
                "The whole JSON body, from a file (- for stdin), instead of the field options."
            )
        if self.operation.body_required and override is None:
            help_text += " Required."
        self.body_param = "body"
        self.params.append(
            Param(
                "body",
                Annotated[
                    str | None,
                    typer.Option(*decls, metavar="FILE", help=help_text, show_default=False),
                ],
                None,
            )
        )

    # -------------------------------------------------------------- running
    def run(self, ctx: typer.Context, values: dict[str, Any]) -> None:
        """Read the values, make the call, print the result."""
        operation = self.operation
        invocation = Invocation(
            ctx,
            operation,
            path=[values[b.param] for b in self.bound if b.input.kind == "path"],
            fields={},
            given={},
            body_label=self.body_label,
            extras={extra.name: values[extra.name] for extra in self.extras},
        )
        for item in self.bound:
            value = values.get(item.param)
            if item.input.kind == "path" or value is None:
                continue
            invocation.fields[item.input.python] = self._value(item, value)
            invocation.given[item.input.python] = item.label
        if self.body_param is not None and values.get(self.body_param) is not None:
            invocation.body = self._read_body(values[self.body_param])
            invocation.body_given = True
        if self.override is not None and self.override.prepare is not None:
            self.override.prepare(invocation)
        self._assemble(invocation)
        result = call_operation(ctx, operation.operation_id, invocation.args, invocation.kwargs)
        if self.override is not None and self.override.output is not None:
            result = self.override.output(invocation, result)
        print_json(result)

    def _read_body(self, path: str) -> Any:
        """The --body file as the method takes it: JSON, UTF-8 text or raw bytes, of at
        most `_output.MAX_INPUT` bytes."""
        kind = self.operation.body_kind
        if kind == "text":
            return read_text(path, self.body_label, _output.MAX_INPUT)
        if kind == "binary":
            return read_bytes(path, self.body_label, _output.MAX_INPUT)
        return read_json(path, self.body_label)

    def _value(self, item: Bound, value: Any) -> Any:
        if item.choices is not None:
            return item.choices[value]
        if item.json_kind is None:
            return value
        try:
            parsed = json.loads(value)
        except ValueError as exc:  # (the text itself is not echoed: it may hold a password)
            raise typer.BadParameter(f"is not valid JSON: {exc}", param_hint=item.label) from None
        except RecursionError:
            raise typer.BadParameter(
                "is not usable JSON: nested too deeply", param_hint=item.label
            ) from None
        expected = _JSON_KINDS.get(item.json_kind)
        if parsed is None and item.input.schema.get("nullable") is True:
            return None  # the document allows null here
        if expected is not None and not isinstance(parsed, expected):
            raise typer.BadParameter(f"must be a JSON {item.json_kind}", param_hint=item.label)
        return parsed

    def _assemble(self, invocation: Invocation) -> None:
        """The generated method's arguments: path values, the body, keyword fields."""
        operation = self.operation
        field_names = {item.python for item in operation.fields}
        given_fields = [
            invocation.given.get(name, name) for name in invocation.fields if name in field_names
        ]
        if invocation.body_given and given_fields:
            raise typer.BadParameter(
                f"cannot be combined with {', '.join(given_fields)}: the file is the whole body",
                param_hint=invocation.body_label,
            )
        args = list(invocation.path)
        kwargs = dict(invocation.fields)
        if operation.body_param is not None:
            if invocation.body_given:
                args.append(invocation.body)
            elif operation.body_required:
                raise self._missing(invocation.ctx, "body")
        elif invocation.body_given:
            kwargs.update(self._fields_of(invocation.body, invocation.body_label))
        missing = [
            item
            for item in self.bound
            if item.input.kind != "path" and item.input.required and item.input.python not in kwargs
        ]
        if missing and missing[0].input.kind == "field" and invocation.body_given:
            # the file is the whole body, so the field's option cannot be added to it
            members = ", ".join(item.input.wire for item in missing if item.input.kind == "field")
            raise typer.BadParameter(
                f"has no {members}, which the body requires", param_hint=invocation.body_label
            )
        if missing:
            raise self._missing(invocation.ctx, missing[0].param)
        invocation.args = args
        invocation.kwargs = kwargs

    def _fields_of(self, body: Any, label: str) -> dict[str, Any]:
        """A JSON object body as the method's keyword fields (and `extra_fields`)."""
        if not isinstance(body, dict):
            raise typer.BadParameter("must hold a JSON object", param_hint=label)
        by_wire = {item.wire: item.python for item in self.operation.fields}
        kwargs: dict[str, Any] = {}
        extra: dict[str, Any] = {}
        for wire, value in body.items():
            if wire in by_wire:
                kwargs[by_wire[wire]] = value
            else:
                extra[wire] = value
        if extra and not self.operation.extra_fields:
            known = ", ".join(by_wire) or "none"
            raise typer.BadParameter(
                f"unknown member(s) {', '.join(sorted(extra))} (known: {known})", param_hint=label
            )
        if extra:
            kwargs["extra_fields"] = extra
        return kwargs

    @staticmethod
    def _missing(ctx: typer.Context, name: str) -> click.MissingParameter:
        param = next((p for p in ctx.command.params if p.name == name), None)
        flags = getattr(param, "secondary_opts", None)  # a flag pair: name both, --on/--off
        hint = repr("/".join([*param.opts, *flags])) if param is not None and flags else None
        return click.MissingParameter(ctx=ctx, param=param, param_hint=hint)

    # ---------------------------------------------------------------- typer
    def callback(self) -> Callable[..., None]:
        """The command function typer reads: `ctx` and one keyword per parameter."""

        def command(ctx: typer.Context, **values: Any) -> None:
            self.run(ctx, values)

        parameters = [
            inspect.Parameter(
                "ctx", inspect.Parameter.POSITIONAL_OR_KEYWORD, annotation=typer.Context
            )
        ]
        parameters += [
            inspect.Parameter(
                p.name,
                inspect.Parameter.KEYWORD_ONLY,
                annotation=p.annotation,
                default=p.default,
            )
            for p in self.params
        ]
        command.__signature__ = inspect.Signature(parameters)  # type: ignore[attr-defined]
        command.__annotations__ = {p.name: p.annotation for p in parameters}
        command.__name__ = self.operation.method
        command.__doc__ = self.help
        return command

    @property
    def help(self) -> str:
        operation = self.operation
        parts = [operation.summary.rstrip(".") + "." if operation.summary else ""]
        if operation.description:
            parts.append(operation.description)
        if self.override is not None and self.override.help:
            parts.append(self.override.help)
        if not operation.requires_key:
            parts.append("Needs no access key.")
        parts.append(f"`{operation.http_method} {operation.path}` ({operation.operation_id}).")
        return "\n\n".join(part for part in parts if part)


def call_operation(
    ctx: typer.Context, operation_id: str, args: list[Any], kwargs: dict[str, Any]
) -> Any:
    """Run one operation with a client from the global options; exit on an SDK error."""
    try:
        return _call_operation(ctx, operation_id, args, kwargs)
    except KeyboardInterrupt:  # also while the SDK loads, before the call (typer: silent)
        say("interrupted")
        raise typer.Exit(INTERRUPTED) from None


def _call_operation(
    ctx: typer.Context, operation_id: str, args: list[Any], kwargs: dict[str, Any]
) -> Any:
    import asyncio

    from .. import EdgeDeliveryError
    from ._options import settings
    from ._output import fail

    client = settings(ctx).client()

    async def main() -> Any:
        async with client:
            return await client.operation(operation_id)(*args, **kwargs)

    try:
        return asyncio.run(main())
    except EdgeDeliveryError as error:
        fail(error)


def build_groups() -> dict[str, typer.Typer]:
    """One typer group per resource, with one command per operation, by group name."""
    from ._overrides import OVERRIDES

    found: dict[str, typer.Typer] = {}
    for group in groups():
        found[group.name] = build_group(group, OVERRIDES)
    return found


def build_group(group: GroupSpec, overrides: Mapping[str, Override]) -> typer.Typer:
    sub = typer.Typer(
        help=group.help,
        no_args_is_help=True,
        rich_markup_mode="markdown",
        context_settings=CONTEXT_SETTINGS,
    )
    for operation in group.operations:
        command = GeneratedCommand.build(operation, overrides.get(operation.operation_id))
        sub.command(
            operation.command,
            cls=Command,
            help=command.help,
            short_help=operation.summary or None,
            context_settings=CONTEXT_SETTINGS,
        )(command.callback())
    return sub


def generated_commands() -> dict[str, GeneratedCommand]:
    """Every operation's command (for tests and tools), by operation id."""
    from ._overrides import OVERRIDES

    return {
        operation.operation_id: GeneratedCommand.build(
            operation, OVERRIDES.get(operation.operation_id)
        )
        for group in groups()
        for operation in group.operations
    }
