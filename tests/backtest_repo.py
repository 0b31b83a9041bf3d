"""A small git repository with pull requests whose history the backtest tests know by heart.

main: M0 (a clean recipe, a changelog) -> "Changelog entry" (pushed, not a PR) -> "Add
DSR1 recipe (#1)" (squash of PR 1) -> merge of PR 3 (a merge commit: PR 3's head is on
main) -> "Tidy the README" (a squash of PR 5 without a PR suffix: its tree is PR 5's head
tree).

- PR 1, squash-merged, three commits:
  c1 adds `fixed_seq_len/dsr1_fp8_h200.sh` with the server command on one line (RCP012,
  line 2) and `agentic/kimik3_fp4_mi355x_mtp.sh` running an engine patch script with no
  waiver (RCP008, line 2);
  c2 splits the server command over lines (RCP012 fixed: its line is edited);
  c3 files `docs/waiver/1.md` naming the recipe (RCP008 gone; its line untouched).
- PR 2, open, two commits: c1 adds `fixed_seq_len/qwen_fp8_b200.sh` with a one-line server
  command (RCP012); c2 edits the README only. RCP012 is still on its head.
- PR 3, merged by a merge commit, one commit: a one-line server command (RCP012), merged.
- PR 4: its head's new recipe blob is deleted from the object store (a missing object).
- PR 5: adds a clean recipe; squash-merged under a subject without `(#5)`.
- PR 6, open: c1 (forked from M0) adds a clean recipe; c2 merges main in. Each commit is
  linted against its own merge-base: c1 against M0, where the changelog has one entry (linted
  against the head's merge-base, c1 would seem to delete the pushed entry: CHL005).

Expected with `--commits` (PR 4 skipped; PRs 5 and 6 have no finding):
  RCP012: findings 3 (PRs 1, 2, 3), on head 2 (PRs 2, 3), before head 2 (PRs 1, 2),
          fixed later 1 (PR 1), line edited 1, stayed on a merged head 1 (PR 3);
  RCP008: findings 2 (PR 1: the recipe and the patch script it runs), before head 2,
          fixed later 2, line edited 0, on head 0.
Merged: PR 1 by its subject, PR 3 as an ancestor of main, PR 5 by its tree.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

ONE_LINE = (
    "#!/usr/bin/env bash\n"
    "python3 -m sglang.launch_server --model-path $MODEL --tp $TP --port $PORT &\n"
)
SPLIT = (
    "#!/usr/bin/env bash\n"
    "python3 -m sglang.launch_server \\\n"
    "  --model-path $MODEL \\\n"
    "  --tp $TP \\\n"
    "  --port $PORT &\n"
)
CLEAN = '#!/usr/bin/env bash\nvllm serve "$MODEL" \\\n  --port "$PORT" &\n'
K3 = "benchmarks/single_node/agentic/kimik3_fp4_mi355x_mtp.sh"
HELPER = "benchmarks/single_node/agentic/apply_k3_patches.sh"
WAIVERS = "docs/waiver/.gitkeep"
HELPER_TEXT = (
    "#!/usr/bin/env bash\n"
    "SITE=\"$(python3 -c 'import importlib.util as u, os; "
    'print(os.path.dirname(os.path.dirname(u.find_spec("vllm").origin)))\')"\n'
    'patch -p1 -d "$SITE" --forward < "$(dirname "$0")/mla_fix.diff"\n'
)
K3_TEXT = '#!/usr/bin/env bash\nbash "$(dirname "$0")/apply_k3_patches.sh"\nvllm serve "$MODEL" &\n'
WAIVER = (
    "# Inference-engine patch waiver — PR #1\n\n"
    f"- Patch entrypoint: `{K3}`\n"
    "- What is patched: vLLM MLA backend (vllm-project/vllm#51011)\n"
    "- Removal plan: drop the patch once the pinned nightly ships #51011.\n"
)
DSR1 = "benchmarks/single_node/fixed_seq_len/dsr1_fp8_h200.sh"
QWEN = "benchmarks/single_node/fixed_seq_len/qwen_fp8_b200.sh"
GLM = "benchmarks/single_node/fixed_seq_len/glm_fp8_h100.sh"
LOST = "benchmarks/single_node/fixed_seq_len/lost_fp8_h100.sh"
KIMI = "benchmarks/single_node/fixed_seq_len/kimi_fp8_h200.sh"
OK5 = "benchmarks/single_node/fixed_seq_len/ok_fp8_h100.sh"
OK6 = "benchmarks/single_node/fixed_seq_len/fine_fp8_h100.sh"
ENTRY = (
    "- config-keys:\n"
    "    - glm-fp8-h100-vllm\n"
    "  description:\n"
    '    - "Entry {n}."\n'
    "  pr-link: https://github.com/acme/recipes/pull/{n}\n"
)
CHANGELOG = ENTRY.format(n=100)


class Repo:
    def __init__(self, root: Path) -> None:
        self.root = root
        self.day = 0

    def git(self, *args: str) -> str:
        self.day += 1
        stamp = f"2026-08-{1 + min(self.day // 4, 27):02d}T12:00:00+00:00"
        env = dict(
            os.environ,
            GIT_AUTHOR_NAME="t",
            GIT_AUTHOR_EMAIL="t@example.com",
            GIT_COMMITTER_NAME="t",
            GIT_COMMITTER_EMAIL="t@example.com",
            GIT_AUTHOR_DATE=stamp,
            GIT_COMMITTER_DATE=stamp,
        )
        env.pop("GIT_DIR", None)
        out = subprocess.run(
            ["git", "-C", str(self.root), *args],
            capture_output=True,
            text=True,
            env=env,
            check=True,
        )
        return out.stdout.strip()

    def write(self, files: dict[str, str | None]) -> None:
        for path, text in files.items():
            full = self.root / path
            if text is None:
                full.unlink()
                continue
            full.parent.mkdir(parents=True, exist_ok=True)
            full.write_text(text)

    def commit(self, message: str, files: dict[str, str | None]) -> str:
        self.write(files)
        self.git("add", "-A")
        self.git("commit", "-q", "-m", message)
        return self.git("rev-parse", "HEAD")

    def pull(self, number: int, sha: str) -> None:
        self.git("update-ref", f"refs/pull/{number}/head", sha)


def build(root: Path) -> dict[str, str]:
    """Make the repository at `root`; the commit ids by name."""
    root.mkdir(parents=True, exist_ok=True)
    r = Repo(root)
    r.git("init", "-q", "-b", "main")
    shas: dict[str, str] = {}
    shas["m0"] = r.commit(
        "Initial",
        # the folder waivers are filed in: the base shows the waiver rule (RCP008); the
        # reviewer prompt's code-style section: the base shows the style rule (RCP012)
        {
            "README.md": "hello\n",
            GLM: CLEAN,
            "perf-changelog.yaml": CHANGELOG,
            WAIVERS: "",
            ".github/workflows/claude-pr-review.yml": "## Benchmark Script Code Style Guidelines:\n",
        },
    )
    r.git("checkout", "-q", "-b", "pr6", "main")
    shas["pr6c1"] = r.commit("Add a fine recipe", {OK6: CLEAN})
    r.git("checkout", "-q", "main")
    shas["push"] = r.commit(
        "Changelog entry", {"perf-changelog.yaml": CHANGELOG + "\n" + ENTRY.format(n=101)}
    )

    r.git("checkout", "-q", "-b", "pr1", "main")
    shas["pr1c1"] = r.commit("Add DSR1 and K3", {DSR1: ONE_LINE, K3: K3_TEXT, HELPER: HELPER_TEXT})
    shas["pr1c2"] = r.commit("One argument per line", {DSR1: SPLIT})
    shas["pr1c3"] = r.commit("File the waiver", {"docs/waiver/1.md": WAIVER})
    r.pull(1, shas["pr1c3"])

    r.git("checkout", "-q", "-b", "pr2", "main")
    shas["pr2c1"] = r.commit("Add Qwen", {QWEN: ONE_LINE})
    shas["pr2c2"] = r.commit("README", {"README.md": "hello again\n"})
    r.pull(2, shas["pr2c2"])

    r.git("checkout", "-q", "-b", "pr3", "main")
    shas["pr3c1"] = r.commit("Add Kimi", {KIMI: ONE_LINE})
    r.pull(3, shas["pr3c1"])

    r.git("checkout", "-q", "-b", "pr4", "main")
    shas["pr4c1"] = r.commit("Add a recipe whose blob goes missing", {LOST: ONE_LINE + "# 4\n"})
    r.pull(4, shas["pr4c1"])
    blob = r.git("rev-parse", f"{shas['pr4c1']}:{LOST}")
    (root / ".git" / "objects" / blob[:2] / blob[2:]).unlink()

    # main: squash PR 1, merge PR 3
    r.git("checkout", "-q", "main")
    r.git("checkout", "-q", "pr1", "--", ".")
    shas["squash1"] = r.commit("Add DSR1 recipe (#1)", {})
    r.git("merge", "-q", "--no-ff", "-m", "Merge pull request #3 from someone/kimi", "pr3")
    shas["merge3"] = r.git("rev-parse", "HEAD")

    r.git("checkout", "-q", "-b", "pr5", "main")
    shas["pr5c1"] = r.commit("Add a clean recipe", {OK5: CLEAN})
    r.pull(5, shas["pr5c1"])
    r.git("checkout", "-q", "main")
    r.git("checkout", "-q", "pr5", "--", ".")
    shas["squash5"] = r.commit("Tidy the README", {})

    r.git("checkout", "-q", "pr6")
    r.git("merge", "-q", "--no-ff", "-m", "Merge main", "main")
    shas["pr6c2"] = r.git("rev-parse", "HEAD")
    r.pull(6, shas["pr6c2"])
    r.git("checkout", "-q", "--detach", "main")
    for branch in ("pr1", "pr2", "pr3", "pr4", "pr5", "pr6"):
        r.git("branch", "-q", "-D", branch)
    return shas
