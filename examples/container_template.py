"""Create a container template with environment variables, then replace them.

.venv/bin/python examples/container_template.py           # against a fake API
.venv/bin/python examples/container_template.py APP_ID    # with EDGEDELIVERY_* set: the real one
"""

from __future__ import annotations

import argparse

from _target import connect, run, using_real_api

from edgedelivery_async.testing import FakeEdgeDelivery


def seed(fake: FakeEdgeDelivery) -> None:
    fake.add_app("app-demo")


async def main(app_id: str) -> None:
    async with connect(seed) as client:
        template = await client.containers.add_template(
            app_id,
            name="api",
            image="nginx:1.27",
            environment_variables={"LOG_LEVEL": "info", "REGION": "eu"},
        )
        print(f"template {template.id} created in {app_id}")
        print("environment:", {v.name: v.value for v in template.environment_variables or []})
        # set_environment replaces the whole set: REGION goes, FEATURE_X arrives.
        updated = await client.containers.set_environment(
            app_id, str(template.id), {"LOG_LEVEL": "debug", "FEATURE_X": "on"}
        )
        print("environment now:", {v.name: v.value for v in updated.environment_variables or []})


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("app_id", nargs="?")
    args = parser.parse_args()
    if using_real_api() and args.app_id is None:
        parser.error("against the real API, name the application")
    run(main(args.app_id or "app-demo"))
