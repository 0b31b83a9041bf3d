"""The import-linter contracts of pyproject.toml hold (the layers import one way).

`.ci/run` runs `lint-imports` too; this makes a broken layer fail the test suite
with the offending import chain in the output.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def test_the_layer_contracts_are_kept(capsys: pytest.CaptureFixture[str]) -> None:
    cli = pytest.importorskip("importlinter.cli", reason="import-linter is a dev dependency")
    here = os.getcwd()
    os.chdir(ROOT)  # `rules` is a root package: importable from the repository root
    try:
        code = cli.lint_imports(config_filename=str(ROOT / "pyproject.toml"), no_cache=True)
    finally:
        os.chdir(here)
    out = capsys.readouterr().out
    assert code == 0, out
    assert "kept, 0 broken" in out
