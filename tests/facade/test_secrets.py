"""A registry password (`format: password` in the document) never shows in a repr, a
call's description or an error message."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from edgedelivery_async import APIResultError, InvalidRequestError
from edgedelivery_async.models import ContainerRegistryCreate, PasswordCredentials

from .conftest import Recorder, mock_client

SECRET = "s3cret-Pa55word"


def test_the_generated_models_leave_the_password_out_of_repr() -> None:
    credentials = PasswordCredentials(user_name="deploy", password=SECRET)
    create = ContainerRegistryCreate(display_name="main", password_credentials=credentials)
    assert SECRET not in repr(credentials)
    assert SECRET not in repr(create)
    assert credentials.to_dict()["password"] == SECRET  # still sent


async def test_the_password_is_sent_and_shown_nowhere_else() -> None:
    recorder = Recorder(httpx.Response(200, json={"id": 31, "error": "", "status": "saved"}))
    async with mock_client(recorder) as client:
        call = client.registries.add.describe(
            display_name="main",
            type="dockerHub",
            password_credentials={"userName": "deploy", "password": SECRET},
        )
        assert SECRET not in repr(call)
        registry_id = await client.registries.add(
            display_name="main",
            type="dockerHub",
            password_credentials=PasswordCredentials(user_name="deploy", password=SECRET),
        )
    assert registry_id == 31
    assert SECRET.encode() in recorder.requests[0].content


@pytest.mark.parametrize("password", [12345, "", ["x"]])
async def test_an_invalid_password_is_refused_without_showing_it(password: Any) -> None:
    recorder = Recorder(httpx.Response(200, json={"id": 31}))
    async with mock_client(recorder) as client:
        with pytest.raises(InvalidRequestError) as info:
            await client.registries.add(
                display_name="main",
                password_credentials={"userName": "u", "password": password},
            )
    assert repr(password) not in str(info.value) or password == ""
    assert "passwordCredentials.password" in str(info.value)
    assert recorder.requests == []


@pytest.mark.parametrize(
    "body",
    [
        {"id": 31, "error": "bad credentials", "status": "secretsValidationFailed"},
        {"id": None, "error": "", "status": "unknownErrorOccured"},
        {"id": 31, "error": "", "status": "someFutureStatus"},
        {"id": 31, "error": "quota reached"},
    ],
)
async def test_a_registry_is_added_only_when_saved(body: dict[str, Any]) -> None:
    async with mock_client(Recorder(httpx.Response(200, json=body))) as client:
        with pytest.raises(APIResultError) as info:
            await client.registries.add(
                display_name="main",
                password_credentials={"userName": "u", "password": SECRET},
            )
    assert info.value.body == body
    assert info.value.error_key == body.get("status")
    assert info.value.message
    assert SECRET not in str(info.value)


@pytest.mark.parametrize(
    "credentials",
    [
        [{"userName": "u", "password": SECRET}],  # a list of the object
        ("u", SECRET),  # a tuple
        SECRET,  # the password alone
    ],
)
async def test_credentials_of_the_wrong_shape_are_refused_without_showing_the_password(
    credentials: Any,
) -> None:
    recorder = Recorder(httpx.Response(200, json={"id": 31}))
    async with mock_client(recorder) as client:
        with pytest.raises(InvalidRequestError) as info:
            await client.registries.add(display_name="main", password_credentials=credentials)
    assert SECRET not in str(info.value)
    assert SECRET not in repr(info.value.errors)
    assert "passwordCredentials: should be of type 'object'" in str(info.value)
    assert recorder.requests == []
