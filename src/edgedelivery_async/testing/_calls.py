"""Arguments for a call of any operation, read from the document.

`document_call(operation_id)` gives the positional and keyword arguments of the
operation's generated method that the client and the fake both accept: every path
parameter, required query parameter, required body field or required whole body, each a
sample of its schema (`_samples.sample`). Names are the generated ones, as the CLI reads
them from the shipped document (hints included). Stateful operations reach a stored
resource only with seeded ids; tests seed those themselves.
"""

from __future__ import annotations

from typing import Any

from ._document import Document
from ._samples import sample


def document_call(
    operation_id: str, document: Document | None = None
) -> tuple[tuple[Any, ...], dict[str, Any]]:
    """(args, kwargs) of a call of `operation_id` of the shipped document."""
    from edgedelivery_async.cli import _document as names

    spec = names.operations()[operation_id]
    document = document or Document()
    args = [sample(p.schema, document) for p in spec.path_params]
    if spec.body_param is not None and spec.body_required:
        args.append(sample(spec.body_schema, document))
    kwargs = {
        p.python: sample(p.schema, document)
        for p in (*spec.query_params, *spec.header_params, *spec.cookie_params, *spec.fields)
        if p.required
    }
    return tuple(args), kwargs
