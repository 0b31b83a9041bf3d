"""Master configs (`configs/*-master.yaml`): config key -> entry, with lines. Pure.

Values come from the C-backed safe loader; the line of each top-level key is
found by scanning column-0 `key:` lines, so a 10k-line file parses in well
under 0.3 s (ruamel's round-trip loader takes 3.3 s on it).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from bot.parse.yamlsafe import YamlError, load_safe

_TOP_KEY = re.compile(r"^([^\s#][^:]*?):(?:\s|$)")


@dataclass(frozen=True)
class MasterEntry:
    key: str
    data: Any
    start_line: int
    end_line: int
    raw: str


@dataclass(frozen=True)
class MasterProblem:
    line: int
    message: str


@dataclass
class MasterConfig:
    path: str
    text: str
    entries: dict[str, MasterEntry] = field(default_factory=dict)
    problems: list[MasterProblem] = field(default_factory=list)


def parse_master_config(path: str, text: str) -> MasterConfig:
    cfg = MasterConfig(path=path, text=text)
    try:
        data = load_safe(text, label=path)
    except YamlError as exc:
        cfg.problems.append(MasterProblem(exc.line or 1, str(exc)))
        return cfg
    if data is None:
        return cfg
    if not isinstance(data, dict):
        cfg.problems.append(MasterProblem(1, f"{path}: expected a mapping of config key -> entry"))
        return cfg
    lines = text.splitlines()
    starts: list[tuple[str, int]] = []
    for no, line in enumerate(lines, 1):
        m = _TOP_KEY.match(line)
        if m:
            starts.append((m.group(1).strip().strip("'\""), no))
    for i, (key, start) in enumerate(starts):
        end = starts[i + 1][1] - 1 if i + 1 < len(starts) else len(lines)
        while end > start and not lines[end - 1].strip():
            end -= 1
        if key in data:
            raw = "\n".join(lines[start - 1 : end])
            cfg.entries[key] = MasterEntry(key, data[key], start, end, raw)
    for key in data:
        if key not in cfg.entries:
            cfg.entries[str(key)] = MasterEntry(str(key), data[key], 1, 1, "")
    return cfg
