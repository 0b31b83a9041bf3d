"""RCP000 says what is wrong where the parser finds it: a syntax error on the line it
names (the same line `bash -n` names where bash can tell), a binary file as "not a
text file" rather than a bash syntax problem."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

from bot.core.config import build_config
from bot.core.engine import Context, lint
from bot.core.registry import get_rule
from bot.core.tree import MemoryTree

PATH = "benchmarks/single_node/agentic/minimaxm3_fp8_h100_vllm.sh"

CASES = {
    # unexpected token: bash -n names the same line
    "extra-done": "#!/bin/bash\nA=1\nfor x in 1 2; do\n  echo $x\ndone done\nvllm serve x\n",
    "extra-esac": "#!/bin/bash\nA=1\ncase $A in\n  1) echo ;;\n  esac esac\nvllm serve x\n",
    # unterminated quote: bash -n names the line the quote opens on
    "open-quote": '#!/bin/bash\nA=1\necho "unterminated\nvllm serve x\n',
}


def rcp000(text: str | bytes) -> list[tuple[int, str, str]]:
    rm = get_rule("RCP000")
    assert rm is not None
    ctx = Context.for_tree(MemoryTree({PATH: text}), build_config(None))
    report = lint(ctx, paths=[PATH], rules=[rm])
    return [(f.line, f.message.en, f.fix.en if f.fix else "") for f in report.findings]


@pytest.mark.parametrize("name", sorted(CASES))
def test_syntax_error_on_the_line_bash_names(name: str, tmp_path: Path) -> None:
    text = CASES[name]
    ((line, message, fix),) = rcp000(text)
    assert f"bash syntax error on line {line}:" in message
    assert "bash syntax" in fix
    if shutil.which("bash") is None:  # pragma: no cover
        pytest.skip("bash is not installed")
    script = tmp_path / "x.sh"
    script.write_text(text, encoding="utf-8")
    proc = subprocess.run(["bash", "-n", str(script)], capture_output=True, text=True)
    m = re.search(r"line (\d+):", proc.stderr)
    assert proc.returncode != 0 and m is not None, proc.stderr
    assert line == int(m.group(1)), (message, proc.stderr)


def test_unclosed_construct_is_reported_where_it_opens_never_past_the_end() -> None:
    text = '#!/bin/bash\nif [ -n "$A" ]; then\n  vllm serve "$MODEL" \\\n    --port 1\necho hi\n'
    ((line, message, _),) = rcp000(text)
    assert line == 2  # bash -n says "line 6: unexpected end of file": past the last line
    assert "missing `fi` to close the if statement" in message


@pytest.mark.parametrize(
    "data",
    [
        b"\x7fELF\x02\x01\x01\x00\x00\x00" + bytes(range(256)) * 4,
        bytes(range(1, 32)) * 40 + b"\xff\xfe" * 300,  # no NUL byte, still binary
    ],
)
def test_binary_file_is_not_a_text_file(data: bytes) -> None:
    ((line, message, fix),) = rcp000(data.decode("utf-8", "replace"))
    assert line == 1
    assert message.startswith("Not a text file:") and "binary content" in message
    assert "bash syntax" not in message and "bash syntax" not in fix
    assert "UTF-8 bash script" in fix
