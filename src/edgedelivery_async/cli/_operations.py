"""One subcommand per API operation: arguments in, the SDK's result as JSON out."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Annotated, Any

import typer

from .. import EdgeDeliveryClient, EdgeDeliveryError
from ._options import settings
from ._output import fail, print_json, read_json

pull_zones = typer.Typer(help="Pull zones: delivery configuration.", no_args_is_help=True)
compute = typer.Typer(help="Compute scripts and their variables.", no_args_is_help=True)
dns_zones = typer.Typer(help="DNS zones.", no_args_is_help=True)
containers = typer.Typer(help="Container templates of an application.", no_args_is_help=True)
registries = typer.Typer(help="Container registries.", no_args_is_help=True)
shield = typer.Typer(
    help="Web-application shield (read only; needs no access key).", no_args_is_help=True
)

Call = Callable[[EdgeDeliveryClient], Awaitable[Any]]


def call(ctx: typer.Context, operation: Call) -> Any:
    """Run one operation with a client from the global options; exit on an SDK error."""
    client = settings(ctx).client()

    async def main() -> Any:
        async with client:
            return await operation(client)

    try:
        return asyncio.run(main())
    except EdgeDeliveryError as error:
        fail(error)


# ------------------------------------------------------------------ pull zones
@pull_zones.command("set-force-ssl")
def set_force_ssl(
    ctx: typer.Context,
    pull_zone_id: Annotated[int, typer.Argument(metavar="PULL_ZONE_ID", show_default=False)],
    hostname: Annotated[
        str, typer.Option("--hostname", help="A hostname of the pull zone.", show_default=False)
    ],
    force_ssl: Annotated[
        bool, typer.Option("--on/--off", help="Force HTTPS on or off.", show_default=False)
    ],
) -> None:
    """Turn forced HTTPS on or off for one hostname of a pull zone."""
    call(
        ctx,
        lambda c: c.pull_zones.set_force_ssl(pull_zone_id, hostname=hostname, force_ssl=force_ssl),
    )
    print_json({"pullZoneId": pull_zone_id, "hostname": hostname, "forceSSL": force_ssl})


# --------------------------------------------------------------------- compute
@compute.command("add-variable")
def add_variable(
    ctx: typer.Context,
    script_id: Annotated[int, typer.Argument(metavar="SCRIPT_ID", show_default=False)],
    name: Annotated[str, typer.Option("--name", help="The variable's name.", show_default=False)],
    required: Annotated[
        bool | None,
        typer.Option(
            "--required/--not-required",
            help="Whether the variable is required.",
            show_default=False,
        ),
    ] = None,
    default_value: Annotated[
        str | None,
        typer.Option("--default-value", help="The variable's default value.", show_default=False),
    ] = None,
) -> None:
    """Add a variable to a compute script; prints it with its assigned Id."""
    print_json(
        call(
            ctx,
            lambda c: c.compute.add_script_variable(
                script_id, name=name, required=required, default_value=default_value
            ),
        )
    )


# ------------------------------------------------------------------- dns zones
@dns_zones.command("add")
def add_dns_zone(
    ctx: typer.Context,
    domain: Annotated[str, typer.Option("--domain", help="The zone's domain.", show_default=False)],
    records_file: Annotated[
        str | None,
        typer.Option(
            "--records-file",
            metavar="FILE",
            help="A JSON array of initial records (- for stdin).",
            show_default=False,
        ),
    ] = None,
) -> None:
    """Create a DNS zone, optionally with initial records; prints the server's reply."""
    records = read_json(records_file, "--records-file") if records_file is not None else None
    if records is not None and not isinstance(records, list):
        raise typer.BadParameter("must hold a JSON array of records", param_hint="--records-file")
    print_json(call(ctx, lambda c: c.dns_zones.add(domain=domain, records=records)))


# ------------------------------------------------------------------ containers
def _pairs(items: list[str], option: str) -> dict[str, str]:
    pairs: dict[str, str] = {}
    for item in items:
        name, sep, value = item.partition("=")
        if not sep or not name:
            raise typer.BadParameter(f"{item!r} is not KEY=VALUE", param_hint=option)
        pairs[name] = value
    return pairs


@containers.command("add-template")
def add_template(
    ctx: typer.Context,
    app_id: Annotated[str, typer.Argument(metavar="APP_ID", show_default=False)],
    template_file: Annotated[
        str | None,
        typer.Option(
            "--file",
            "-f",
            metavar="FILE",
            help="The whole template as a JSON object (- for stdin).",
            show_default=False,
        ),
    ] = None,
    name: Annotated[
        str | None, typer.Option("--name", help="Template name.", show_default=False)
    ] = None,
    image: Annotated[
        str | None,
        typer.Option("--image", help="Image reference, e.g. nginx:1.27.", show_default=False),
    ] = None,
    env: Annotated[
        list[str] | None,
        typer.Option(
            "--env",
            "-e",
            metavar="KEY=VALUE",
            help="An environment variable (repeatable).",
            show_default=False,
        ),
    ] = None,
) -> None:
    """Create a container template from --file, or from --name/--image/--env."""
    variables = _pairs(env or [], "--env")
    if template_file is not None:
        if name is not None or image is not None or variables:
            raise typer.BadParameter(
                "--file cannot be combined with --name, --image or --env", param_hint="--file"
            )
        template = read_json(template_file, "--file")
        if not isinstance(template, dict):
            raise typer.BadParameter("must hold a JSON object", param_hint="--file")
        print_json(call(ctx, lambda c: c.containers.add_template(app_id, template)))
        return
    print_json(
        call(
            ctx,
            lambda c: c.containers.add_template(
                app_id,
                name=name,
                image=image,
                environment_variables=variables or None,
            ),
        )
    )


@containers.command("set-env")
def set_env(
    ctx: typer.Context,
    app_id: Annotated[str, typer.Argument(metavar="APP_ID", show_default=False)],
    container_id: Annotated[str, typer.Argument(metavar="CONTAINER_ID", show_default=False)],
    variables: Annotated[
        list[str] | None,
        typer.Argument(metavar="KEY=VALUE...", help="The new variables.", show_default=False),
    ] = None,
    variables_file: Annotated[
        str | None,
        typer.Option(
            "--file",
            "-f",
            metavar="FILE",
            help='A JSON object {"NAME": "value"} (- for stdin); KEY=VALUE arguments win.',
            show_default=False,
        ),
    ] = None,
    clear: Annotated[
        bool, typer.Option("--clear", help="Allow an empty set: remove every variable.")
    ] = False,
) -> None:
    """Replace a template's environment variables: the given set becomes the whole set."""
    merged: dict[str, str] = {}
    if variables_file is not None:
        loaded = read_json(variables_file, "--file")
        if not isinstance(loaded, dict) or not all(isinstance(v, str) for v in loaded.values()):
            raise typer.BadParameter("must hold a JSON object of strings", param_hint="--file")
        merged.update(loaded)
    merged.update(_pairs(variables or [], "KEY=VALUE"))
    if not merged and not clear:
        raise typer.BadParameter(
            "no variables given; pass --clear to remove every variable", param_hint="KEY=VALUE"
        )
    print_json(call(ctx, lambda c: c.containers.set_environment(app_id, container_id, merged)))


# ------------------------------------------------------------------ registries
@registries.command("add")
def add_registry(
    ctx: typer.Context,
    display_name: Annotated[
        str, typer.Option("--display-name", help="The registry's name.", show_default=False)
    ],
) -> None:
    """Add a container registry; prints its id."""
    print_json({"id": call(ctx, lambda c: c.registries.add(display_name=display_name))})


@registries.command("get")
def get_registry(
    ctx: typer.Context,
    registry_id: Annotated[int, typer.Argument(metavar="REGISTRY_ID", show_default=False)],
) -> None:
    """Get one registry (the password only by its first and last symbols)."""
    print_json(call(ctx, lambda c: c.registries.get(registry_id)))


# ---------------------------------------------------------------------- shield
@shield.command("get")
def get_shield_zone(
    ctx: typer.Context,
    pull_zone_id: Annotated[int, typer.Argument(metavar="PULL_ZONE_ID", show_default=False)],
) -> None:
    """The shield zone configuration of one pull zone."""
    print_json(call(ctx, lambda c: c.shield.get_zone_by_pull_zone(pull_zone_id)))


@shield.command("upload-scanning")
def upload_scanning(
    ctx: typer.Context,
    shield_zone_id: Annotated[int, typer.Argument(metavar="SHIELD_ZONE_ID", show_default=False)],
) -> None:
    """Whether upload scanning is enabled for a shield zone."""
    print_json(call(ctx, lambda c: c.shield.get_upload_scanning(shield_zone_id)))
