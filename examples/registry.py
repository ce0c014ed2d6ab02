"""Add a container registry and read it back.

.venv/bin/python examples/registry.py          # against a fake API
.venv/bin/python examples/registry.py NAME     # with EDGEDELIVERY_* set: the real one
"""

from __future__ import annotations

import argparse

from _target import connect, run

from edgedelivery_async import APIResultError


async def main(display_name: str) -> None:
    async with connect() as client:
        try:
            registry_id = await client.registries.add(display_name=display_name)
        except APIResultError as error:  # a 2xx reply whose body reports a failure
            print(f"the registry was not added: {error.message}")
            return
        print(f"registry {registry_id} added")
        registry = await client.registries.get(registry_id)
        print(f"{registry.display_name}: host {registry.host_name!r}, user {registry.user_name!r}")
        print(f"created at {registry.created_at}, public: {registry.is_public}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("display_name", nargs="?", default="example-registry")
    run(main(parser.parse_args().display_name))
