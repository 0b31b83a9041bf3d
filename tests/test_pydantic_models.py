"""Reading a repository's pydantic models statically (`bot/parse/pydantic_models.py`)."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from bot.parse.pydantic_models import (
    key_allowed,
    key_required,
    parse_models,
    types_at,
    value_allowed,
)

SOURCE = """\
from enum import Enum
from typing import Annotated, ClassVar, Dict, List, Literal, Optional, Union
from pydantic import BaseModel, ConfigDict, Field
import os

os.system("touch /tmp/pwned-by-validation")  # never runs: the module is only parsed

LABEL = "cluster:"
ALIAS = "kv-offloading"


class Fields(Enum):
    DP_ATTN = 'dp-attn'
    NUM_WORKER = 'num-worker'


class Mode(str, Enum):
    NONE = "none"
    DRAM = "dram"


class Base(BaseModel):
    model_config = ConfigDict(extra='forbid', populate_by_name=True)
    tp: int
    dp_attn: Optional[bool] = Field(default=None, alias=Fields.DP_ATTN.value)


class Worker(Base):
    num_worker: int = Field(alias=Fields.NUM_WORKER.value)
    hardware: Optional[str] = Field(default=None, min_length=1)
    counter: ClassVar[int] = 0
    _private: int = 0


class Loose(BaseModel):
    name: str


class Legacy(BaseModel):
    class Config:
        extra = "forbid"

    size: "int"


class Point(Base):
    kv_offloading: Optional[Mode] = Field(None, alias=ALIAS)
    prefill: Optional[Worker] = None
    conc: Union[int, List[int]]
    extras: Dict[str, Worker] = Field(default_factory=dict)
    spec: Annotated[Literal["mtp", "none"], "doc"] = "none"
    both: int | None
    required_anyway: Optional[int] = Field(...)


Points = List[Point]


class Entry(BaseModel):
    model_config = ConfigDict(extra="forbid")
    points: Points
    loose: Loose
"""


@pytest.fixture(scope="module")
def table():  # type: ignore[no-untyped-def]
    return parse_models("validation.py", SOURCE)


def test_models_fields_aliases_and_inheritance(table) -> None:  # type: ignore[no-untyped-def]
    assert table.ok
    assert sorted(table.models) == ["Base", "Entry", "Legacy", "Loose", "Point", "Worker"]
    worker = table.model("Worker")
    # an alias through an Enum member; the attribute name too, under populate_by_name
    assert {"tp", "dp-attn", "dp_attn", "num-worker", "num_worker", "hardware"} == set(
        worker.fields
    )
    assert worker.forbid_extra
    assert worker.fields["num-worker"].required and not worker.fields["hardware"].required
    assert not table.model("Loose").forbid_extra  # pydantic ignores unknown keys by default
    assert table.model("Legacy").forbid_extra  # the v1 `class Config`
    point = table.model("Point")
    assert point.fields["kv-offloading"].required is False  # a positional default
    assert point.fields["both"].required  # `int | None` without a default: required
    assert point.fields["required_anyway"].required  # `Field(...)`
    # populate_by_name is inherited from Base, as pydantic merges a parent's config
    assert "kv_offloading" in point.fields


def test_questions_about_a_document(table) -> None:  # type: ignore[no-untyped-def]
    assert key_allowed(table, "Entry", ["points", 0, "prefill"], "hardware") == "accepts"
    assert key_allowed(table, "Entry", ["points", 0, "prefill"], "trace-source") == "rejects"
    assert key_allowed(table, "Entry", ["loose"], "anything") == "accepts"
    assert key_allowed(table, "Entry", ["points", 0, "extras", "x"], "tp") == "accepts"
    assert key_allowed(table, "Entry", ["nowhere"], "x") == "unknown"
    assert key_required(table, "Entry", ["points", 0], "tp") == "accepts"
    assert key_required(table, "Entry", ["points", 0], "dp-attn") == "rejects"
    assert value_allowed(table, "Entry", ["points", 0, "spec"], "mtp", "string") == "accepts"
    assert value_allowed(table, "Entry", ["points", 0, "spec"], "eagle3", "string") == "rejects"
    assert (
        value_allowed(table, "Entry", ["points", 0, "kv-offloading"], "dram", "string") == "accepts"
    )
    assert value_allowed(table, "Entry", ["points", 0, "kv-offloading"], None, "null") == "accepts"
    assert value_allowed(table, "Entry", ["points", 0, "conc"], [1, 2], "list") == "accepts"
    assert value_allowed(table, "Entry", ["points", 0, "conc"], "8", "string") == "rejects"
    types = types_at(table, "Entry", ["points", 0, "prefill"])
    assert types is not None and {t.kind for t in types} == {"union"}


def test_the_module_is_never_run(tmp_path: Path) -> None:
    marker = Path("/tmp/pwned-by-validation")
    marker.unlink(missing_ok=True)
    parse_models("validation.py", SOURCE)
    assert not marker.exists()


@pytest.mark.parametrize(
    "text",
    [
        "class (:\n",
        "x = " + "(" * 10_000 + ")" * 10_000 + "\n",
        "x = 1\n" * 200_000,
        "\x00",
        "# nothing here\n",
    ],
)
def test_hostile_or_empty_modules_read_as_no_models(text: str) -> None:
    table = parse_models("validation.py", text)
    assert not table.ok


def test_every_validator_the_mirror_holds_is_read() -> None:
    """Each version of InferenceX's validator since the master-config models exist."""
    repo = Path("/work/ix")
    if not (repo / "HEAD").exists() and not (repo / ".git").exists():
        pytest.skip("the InferenceX mirror is absent")
    log = subprocess.run(
        [
            "git",
            "-C",
            str(repo),
            "log",
            "--format=%H",
            "main",
            "--",
            "utils/matrix_logic/validation.py",
        ],
        capture_output=True,
        text=True,
    )
    if log.returncode != 0 or not log.stdout.strip():
        pytest.skip("the InferenceX mirror has no history here")
    read = 0
    for sha in log.stdout.split():
        shown = subprocess.run(
            ["git", "-C", str(repo), "show", f"{sha}:utils/matrix_logic/validation.py"],
            capture_output=True,
            text=True,
        )
        if shown.returncode != 0 or "class SingleNodeMasterConfigEntry" not in shown.stdout:
            continue
        table = parse_models("validation.py", shown.stdout)
        assert table.ok, sha
        single = table.model("SingleNodeMasterConfigEntry")
        assert single is not None and {"image", "model-prefix"} <= set(single.fields)
        assert key_allowed(table, "SingleNodeMasterConfigEntry", [], "bogus") == "rejects", sha
        read += 1
    assert read >= 10
