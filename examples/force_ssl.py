"""Force HTTPS for one hostname of a pull zone, then turn it off again.

.venv/bin/python examples/force_ssl.py                      # against a fake API
.venv/bin/python examples/force_ssl.py 42 cdn.example.com   # with EDGEDELIVERY_* set: the real one
"""

from __future__ import annotations

import argparse

from _target import connect, run, using_real_api

from edgedelivery_async import InvalidRequestError, NotFoundError
from edgedelivery_async.testing import FakeEdgeDelivery


def seed(fake: FakeEdgeDelivery) -> None:
    fake.add_pull_zone(42, hostnames=["cdn.example.com"])


async def main(pull_zone_id: int, hostname: str) -> None:
    async with connect(seed) as client:
        await client.pull_zones.set_force_ssl(pull_zone_id, hostname=hostname, force_ssl=True)
        print(f"pull zone {pull_zone_id}: HTTPS forced for {hostname}")
        await client.pull_zones.set_force_ssl(pull_zone_id, hostname=hostname, force_ssl=False)
        print(f"pull zone {pull_zone_id}: HTTPS no longer forced for {hostname}")
        try:  # an empty hostname breaks the documented rules: refused before sending
            await client.pull_zones.set_force_ssl(pull_zone_id, hostname="", force_ssl=True)
        except InvalidRequestError as error:
            print(f"refused, nothing sent: {error.errors[0].field}: {error.errors[0].message}")
        if not using_real_api():
            try:
                await client.pull_zones.set_force_ssl(987654, hostname=hostname, force_ssl=True)
            except NotFoundError as error:  # every failure is an EdgeDeliveryError subclass
                print(f"an unknown pull zone: {error.status_code} {type(error).__name__}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("pull_zone_id", type=int, nargs="?")
    parser.add_argument("hostname", nargs="?")
    args = parser.parse_args()
    if using_real_api() and (args.pull_zone_id is None or args.hostname is None):
        parser.error("against the real API, name the pull zone and hostname to change")
    run(main(args.pull_zone_id or 42, args.hostname or "cdn.example.com"))
