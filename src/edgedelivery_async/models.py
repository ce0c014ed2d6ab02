"""The API's models (generated from the OpenAPI document), for type hints and inputs."""

from edgedelivery_openapi.models import *  # noqa: F403
from edgedelivery_openapi.models import __all__ as __all__
from edgedelivery_openapi.types import UNSET as UNSET
from edgedelivery_openapi.types import Unset as Unset
