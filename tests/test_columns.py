"""Columns on lines with text outside ASCII: characters in the core, text, annotations and
JSON; UTF-16 code units in SARIF (its declared `columnKind`); UTF-8 bytes in rdjson.

Each expectation is the unit's own definition applied to the offending line (slice the
line in that unit at the reported column and the offending text starts there), never
the implementation's arithmetic: a CJK character is one character, one UTF-16 unit and
three bytes; an emoji is one character, two UTF-16 units (a surrogate pair) and four
bytes.
"""

from __future__ import annotations

import json
from typing import Any

import lintkit
import pytest
from test_reporters import _validate_sarif

from bot.base.span import column_in
from bot.core.engine import Report
from bot.core.model import Finding
from bot.parse.yamlpos import load_positioned
from bot.report import github, json_report, rdjson, sarif, text

RECIPE = "benchmarks/single_node/agentic/minimaxm3_fp4_mi355x_mtp.sh"
TRT = "benchmarks/single_node/agentic/minimaxm3_fp4_b300_trt_mtp.sh"

# the offending value (`minimax_m3` after `--reasoning-parser`) after Chinese text, after
# an emoji, and after both
LINES = {
    "chinese": 'vllm serve "$MODEL" --served-model-name "中文模型名称" '
    "--tool-call-parser minimax_m3 --reasoning-parser minimax_m3 &",
    "emoji": 'vllm serve "$MODEL" --served-model-name "😀" --reasoning-parser minimax_m3 &',
    "both": 'vllm serve "$MODEL" --served-model-name "模型😀😀" --reasoning-parser minimax_m3 &',
}


def _rcp001(files: dict[str, str]) -> Finding:
    report = lintkit.lint_files(files, rules=[lintkit.rule("RCP001")])
    (finding,) = report.findings
    return finding


def _target(line: str) -> int:
    """0-based character offset of the offending value on `line`."""
    return line.index("minimax_m3", line.index("--reasoning-parser"))


def _at_utf16(line: str, column: int) -> str:
    """The rest of `line` from a 1-based column counted in UTF-16 code units."""
    units = line.encode("utf-16-le")
    return units[(column - 1) * 2 :].decode("utf-16-le")


def _at_utf8(line: str, column: int) -> str:
    """The rest of `line` from a 1-based column counted in UTF-8 bytes."""
    return line.encode("utf-8")[column - 1 :].decode("utf-8")


@pytest.mark.parametrize("case", sorted(LINES))
def test_every_reporter_counts_its_own_unit(case: str) -> None:
    line = LINES[case]
    finding = _rcp001({RECIPE: f"#!/usr/bin/env bash\n{line}\n"})
    char_col = _target(line) + 1
    assert (finding.span.line, finding.span.col) == (2, char_col)
    assert finding.line_text == line
    report = Report(findings=[finding], files=[RECIPE])

    # characters: text, GitHub annotations, JSON
    assert f"{RECIPE}:2:{char_col} " in text.render(report, "en")
    assert f"line=2,col={char_col}," in github.render(report, "en")
    assert json.loads(json_report.render(report))["findings"][0]["column"] == char_col
    assert line[char_col - 1 :].startswith("minimax_m3")

    # SARIF: the run declares UTF-16 code units and the region counts them
    log: dict[str, Any] = json.loads(sarif.render(report, "en"))
    _validate_sarif(log)
    (run,) = log["runs"]
    assert run["columnKind"] == "utf16CodeUnits"
    region = run["results"][0]["locations"][0]["physicalLocation"]["region"]
    assert region["startLine"] == 2
    assert _at_utf16(line, region["startColumn"]).startswith("minimax_m3")

    # rdjson: UTF-8 bytes, as reviewdog defines Position.column
    diag = json.loads(rdjson.render(report, "en"))["diagnostics"][0]
    column = diag["location"]["range"]["start"]["column"]
    assert _at_utf8(line, column).startswith("minimax_m3")


def test_the_units_differ_where_they_should() -> None:
    """An emoji line: the three units give three different columns (a check that the
    cases above exercise every conversion, not a coincidence of equal units)."""
    line = LINES["both"]
    finding = _rcp001({RECIPE: f"#!/usr/bin/env bash\n{line}\n"})
    report = Report(findings=[finding], files=[RECIPE])
    sarif_col = json.loads(sarif.render(report))["runs"][0]["results"][0]["locations"][0][
        "physicalLocation"
    ]["region"]["startColumn"]
    rdjson_col = json.loads(rdjson.render(report))["diagnostics"][0]["location"]["range"]["start"][
        "column"
    ]
    # 模型 (2 characters, 2 UTF-16 units, 6 bytes), 😀😀 (2 characters, 4 units, 8 bytes)
    assert sarif_col == finding.span.col + 2
    assert rdjson_col == finding.span.col + 2 * 2 + 2 * 3


def test_heredoc_yaml_columns_are_characters() -> None:
    """A value found by the YAML reader inside a heredoc: ruamel's column and the
    heredoc's start are both characters."""
    yaml_line = '{max_batch_size: $CONC, note: "中文😀", reasoning_parser: minimax_m3}'
    script = (
        "#!/usr/bin/env bash\ncat << EOF > ser.yaml\n"
        f"{yaml_line}\nEOF\n"
        'trtllm-serve "$MODEL_PATH" --tp_size "$TP" --config ser.yaml &\n'
    )
    finding = _rcp001({TRT: script})
    assert (finding.span.line, finding.span.col) == (3, yaml_line.index("minimax_m3") + 1)


def test_bash_columns_after_text_outside_ascii_on_a_continued_command() -> None:
    """A value on the second line of a command whose first line holds Chinese text: each
    line counts from its own start."""
    script = (
        "#!/usr/bin/env bash\n"
        'vllm serve "$MODEL" --served-model-name "中文" \\\n'
        "    --reasoning-parser minimax_m3 &\n"
    )
    finding = _rcp001({RECIPE: script})
    assert (finding.span.line, finding.span.col) == (3, 24)


def test_yaml_positions_are_characters() -> None:
    data = load_positioned('a: "中文"\nb: {x: 中文, y: 😀😀, z: 1}\n')
    assert data["b"].value_pos("z") == (2, "b: {x: 中文, y: 😀😀, z: 1}".index("1") + 1)


@pytest.mark.parametrize(
    ("line", "col", "utf16", "utf8"),
    [
        ("abc", 3, 3, 3),
        ("中文x", 3, 3, 7),  # CJK: one UTF-16 unit, three bytes
        ("😀x", 2, 3, 5),  # astral: a surrogate pair, four bytes
        ("é😀中x", 4, 5, 10),
        ("😀", 5, 6, 8),  # past the end (a line quoted only in part): one unit each
        (None, 7, 7, 7),  # no line known
        ("😀x", 1, 1, 1),
    ],
)
def test_column_in(line: str | None, col: int, utf16: int, utf8: int) -> None:
    assert column_in(line, col, "utf16") == utf16
    assert column_in(line, col, "utf8") == utf8
