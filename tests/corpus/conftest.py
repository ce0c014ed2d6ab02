"""The project copy with the service's published documents merged in and regenerated,
shared by the corpus tests (test_corpus.py, test_prism.py): made once per test run."""

from __future__ import annotations

from pathlib import Path
from types import ModuleType

import pytest

from ._corpus import CORPUS, published

EXTRA = ("src", "tests/cli")  # beside what regeneration needs
PAGINATION = {"page": "page", "items": "Items", "has-more": "HasMoreItems"}


@pytest.fixture(scope="package")
def merged(tmp_path_factory: pytest.TempPathFactory, project_copy: ModuleType) -> Path:
    """A copy of the project with the corpus merged in, the one `x-sdk-pagination` line a
    maintainer adds, and regenerated (scripts/project_copy.py, as scripts/corpus-suite.sh)."""
    published()  # the corpus must be there
    copy: Path = project_copy.copy_project(
        tmp_path_factory.mktemp("corpus") / "project", extra=EXTRA
    )
    try:
        project_copy.merge_corpus(copy, CORPUS)  # writes regenerate.log
    except RuntimeError as failed:
        pytest.fail(str(failed))
    assert project_copy.PAGINATION == PAGINATION
    return copy
