"""Container applications and templates (container area)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from edgedelivery_openapi.models import (
    ContainerTemplate,
    ContainerTemplateCreate,
    EndpointCreate,
    EntryPoint,
    EnvironmentVariable,
    EnvironmentVariableMap,
    Probes,
    VolumeMount,
)

from .._endpoint import endpoint
from .._exceptions import InvalidRequestError
from .._response import json_body, parse_model
from .._schema import Problem
from ._base import Resource, present

EnvironmentInput = Mapping[str, str] | Sequence[EnvironmentVariable | Mapping[str, Any]]


class Containers(Resource):
    """Container templates of an application."""

    @endpoint
    async def add_template(
        self,
        app_id: str | int,
        template: ContainerTemplateCreate | Mapping[str, Any] | None = None,
        *,
        name: str | None = None,
        image: str | None = None,
        image_name: str | None = None,
        image_namespace: str | None = None,
        image_tag: str | None = None,
        image_registry_id: str | None = None,
        image_digest: str | None = None,
        entry_point: EntryPoint | Mapping[str, Any] | None = None,
        probes: Probes | Mapping[str, Any] | None = None,
        environment_variables: EnvironmentInput | None = None,
        endpoints: Sequence[EndpointCreate | Mapping[str, Any]] | None = None,
        volume_mounts: Sequence[VolumeMount | Mapping[str, Any]] | None = None,
        extra_fields: Mapping[str, Any] | None = None,
    ) -> ContainerTemplate:
        """Create a container template; returns it with its generated ids and addresses.

        Pass either a whole `template` (a `ContainerTemplateCreate` or its JSON form) or
        the fields as keywords. `environment_variables` may be a `{name: value}` mapping.
        `extra_fields` carries fields the document does not name (sent as given).
        Either `image` or `image_registry_id` must be a non-empty string.
        """
        fields = present(
            name=name,
            image=image,
            imageName=image_name,
            imageNamespace=image_namespace,
            imageTag=image_tag,
            imageRegistryId=image_registry_id,
            imageDigest=image_digest,
            entryPoint=entry_point,
            probes=probes,
            environmentVariables=_environment_list(environment_variables),
            endpoints=endpoints,
            volumeMounts=volume_mounts,
        )
        if template is not None:
            if fields or extra_fields:
                raise InvalidRequestError(
                    "ContainerTemplate_Add",
                    [Problem("", "pass either template or keyword fields (or extra_fields)")],
                )
            body: Any = template
        else:
            body = {**fields, **(extra_fields or {})}
        raw = await self._send("ContainerTemplate_Add", {"appId": app_id}, body)
        return parse_model(ContainerTemplate, raw, json_body(raw))

    @endpoint
    async def set_environment(
        self,
        app_id: str | int,
        container_id: str | int,
        variables: Mapping[str, str] | EnvironmentVariableMap,
    ) -> ContainerTemplate:
        """Replace the template's environment variables: `variables` becomes the whole set.

        Every existing variable is removed. Returns the updated template.
        """
        raw = await self._send(
            "ContainerTemplate_SetEnvironmentVariables",
            {"appId": app_id, "containerId": container_id},
            variables,
        )
        return parse_model(ContainerTemplate, raw, json_body(raw))


def _environment_list(value: EnvironmentInput | None) -> Any:
    if isinstance(value, Mapping):
        return [{"name": key, "value": item} for key, item in value.items()]
    return value
