"""Compute scripts (core area)."""

from __future__ import annotations

from edgedelivery_openapi.models import ScriptVariable

from .._endpoint import endpoint
from .._exceptions import APIResponseValidationError
from .._response import json_body, parse_model
from ._base import Resource, present


class Compute(Resource):
    """Compute scripts and their variables."""

    @endpoint
    async def add_script_variable(
        self,
        script_id: int | str,
        *,
        name: str,
        required: bool | None = None,
        default_value: str | None = None,
    ) -> ScriptVariable:
        """Add a variable to a compute script; returns it with its assigned `Id`."""
        raw = await self._send(
            "ComputeScript_AddVariable",
            {"id": script_id},
            present(Name=name, Required=required, DefaultValue=default_value),
        )
        body = json_body(raw)
        variable = parse_model(ScriptVariable, raw, body)
        if isinstance(variable.id, bool) or not isinstance(variable.id, int):
            raise APIResponseValidationError(raw, body, message="the reply's Id is not an integer")
        return variable
