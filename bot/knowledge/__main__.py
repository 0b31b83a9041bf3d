"""`python -m bot.knowledge`: compile `default.yaml` to `default.json`, the form every
start reads (`bot.core.config.default_knowledge`); `--check` only says whether the
JSON is the YAML's (exit 1 when not)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from bot.core.config import knowledge_digest
from bot.parse.yamlsafe import load_safe

HERE = Path(__file__).resolve().parent


def compiled_text() -> str:
    text = (HERE / "default.yaml").read_text(encoding="utf-8")
    data = load_safe(text, label="bot/knowledge/default.yaml")
    body = {"source_sha256": knowledge_digest(text), "data": data}
    return json.dumps(body, ensure_ascii=False, indent=1, sort_keys=False) + "\n"


def main(argv: list[str]) -> int:
    target = HERE / "default.json"
    want = compiled_text()
    have = target.read_text(encoding="utf-8") if target.exists() else None
    if "--check" in argv:
        if have == want:
            return 0
        print(
            f"{target} is not compiled from default.yaml: run python -m bot.knowledge",
            file=sys.stderr,
        )
        return 1
    if have != want:
        target.write_text(want, encoding="utf-8")
        print(f"wrote {target}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
