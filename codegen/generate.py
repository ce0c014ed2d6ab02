"""Run openapi-python-client with the document's names for model fields.

    python codegen/generate.py generate --path ... (the generator's own command line)

The generator names a model's attribute by its own `snake_case` of the wire name, and
reads no hint for it: `dDoSChallengeWindow` became `d_do_s_challenge_window`. A property
may say its Python name with `x-sdk-name` (as a parameter may, and as the emitted
methods and the CLI already honour for body fields); this runs the generator with that
hint applied to the models too. Nothing else of the generator changes.
"""

from __future__ import annotations

import sys
from typing import Any

import attrs
from openapi_python_client.cli import app
from openapi_python_client.parser import properties
from openapi_python_client.strings import PythonIdentifier

HINT = "x-sdk-name"
_generator_property_from_data = properties.property_from_data


def property_from_data(*args: Any, **kwargs: Any) -> Any:
    """The generator's property, named by the schema's `x-sdk-name` where it has one."""
    prop, schemas = _generator_property_from_data(*args, **kwargs)
    data = kwargs["data"] if "data" in kwargs else args[2]
    config = kwargs["config"] if "config" in kwargs else args[5]
    hint = (getattr(data, "model_extra", None) or {}).get(HINT)
    if hint is not None and isinstance(prop, properties.Property):
        if not isinstance(hint, str) or not hint.isidentifier():
            raise SystemExit(f"{HINT} must be a Python identifier, got {hint!r}")
        # As written (a valid identifier): the generator's snake_case would drop the `_` of
        # `to_dict_` (prepare_spec.model_names_of_their_own).
        name = PythonIdentifier(hint, prefix=config.field_prefix, skip_snake_case=True)
        prop = attrs.evolve(prop, python_name=name)
    return prop, schemas


def main() -> None:
    # The generator's modules look it up here at each call (`from . import ...`).
    properties.property_from_data = property_from_data
    sys.argv[0] = "openapi-python-client"
    app()


if __name__ == "__main__":
    main()
