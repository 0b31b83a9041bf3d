"""What a change does inside a master-config entry (`bot/parse/master_diff.py`)."""

from __future__ import annotations

from bot.parse.master_diff import entry_diff

FIELDS = ("image", "tp", "ep", "conc-list", "additional-settings", "kv-offload-backend")


def kinds(before: object, after: object) -> list[tuple[str, str | None]]:
    return [(d.kind, d.field) for d in entry_diff(before, after, FIELDS, ("conc-list",))]


POINT = {"tp": 8, "conc-list": [1, 2, 4]}
ENTRY = {"image": "a:1", "scenarios": {"fixed-seq-len": [{"isl": 1, "search-space": [POINT]}]}}


def test_removals_of_points_values_and_scenarios() -> None:
    fewer = {"tp": 8, "conc-list": [1, 4]}
    entry = {"image": "a:1", "scenarios": {"fixed-seq-len": [{"isl": 1, "search-space": [fewer]}]}}
    assert kinds(ENTRY, entry) == [("removed", None)]
    assert kinds({**ENTRY, "scenarios": {**ENTRY["scenarios"], "agentic-coding": []}}, ENTRY) == [
        ("removed", "scenarios.agentic-coding")
    ]
    two = {
        "image": "a:1",
        "scenarios": {"fixed-seq-len": [{"isl": 1, "search-space": [POINT, POINT | {"tp": 4}]}]},
    }
    assert kinds(two, ENTRY) == [("removed", None)]


def test_added_points_and_changed_values_affect_the_benchmark() -> None:
    more = {"tp": 8, "conc-list": [1, 2, 4, 8]}
    entry = {"image": "a:1", "scenarios": {"fixed-seq-len": [{"isl": 1, "search-space": [more]}]}}
    assert kinds(ENTRY, entry) == [("benchmark", "conc-list")]
    assert kinds(ENTRY, ENTRY | {"image": "a:2"}) == [("benchmark", "image")]
    point = {"tp": 8, "conc-list": [1, 2, 4], "additional-settings": ["A=1"]}
    entry = {"image": "a:1", "scenarios": {"fixed-seq-len": [{"isl": 1, "search-space": [point]}]}}
    # dropping a setting is a change of the field, not a removal of points
    assert kinds(entry, ENTRY) == [("benchmark", "additional-settings")]


def test_metadata_fields() -> None:
    router = ENTRY | {"router": {"name": "r", "version": "1"}}
    assert kinds(ENTRY, router) == [("metadata", "router")]
    assert kinds(router, ENTRY | {"router": {"name": "r", "version": "2"}}) == [
        ("metadata", "router.version")
    ]
    worker = {"prefill": {"tp": 4}, "conc-list": [1]}
    hw = {"prefill": {"tp": 4, "hardware": "gb200"}, "conc-list": [1]}
    entry = {"scenarios": {"fixed-seq-len": [{"search-space": [worker, worker]}]}}
    head = {"scenarios": {"fixed-seq-len": [{"search-space": [hw, hw]}]}}
    assert kinds(entry, head) == [
        ("metadata", "prefill.hardware"),
        ("metadata", "prefill.hardware"),
    ]
    # a value whose form changes keeps its field: the backend is benchmark-affecting
    backend = ENTRY | {"kv-offload-backend": "vllm-simple"}
    assert kinds(backend, ENTRY | {"kv-offload-backend": {"name": "vllm-simple"}}) == [
        ("benchmark", "kv-offload-backend")
    ]
