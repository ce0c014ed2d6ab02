"""The click that typer runs on, for the few click classes the CLI extends.

typer vendors click as `typer._click` (typer 0.2x on); older typer runs on the `click`
package. Exceptions and parameter types must come from the same click as typer's
own, or typer would not recognise them.
"""

from __future__ import annotations

try:
    from typer._click.core import Context, Parameter
    from typer._click.exceptions import MissingParameter, NoSuchOption, UsageError
    from typer._click.types import FloatParamType, FloatRange, IntParamType, IntRange, ParamType
except ImportError:  # pragma: no cover - typer before the vendored click
    from click.core import Context, Parameter  # type: ignore[assignment]
    from click.exceptions import (  # type: ignore[assignment]
        MissingParameter,
        NoSuchOption,
        UsageError,
    )
    from click.types import (  # type: ignore[assignment]
        FloatParamType,
        FloatRange,
        IntParamType,
        IntRange,
        ParamType,
    )

__all__ = [
    "Context",
    "FloatParamType",
    "FloatRange",
    "IntParamType",
    "IntRange",
    "MissingParameter",
    "NoSuchOption",
    "ParamType",
    "Parameter",
    "UsageError",
]
