"""Plain scalars resolved once per thread (`yamlsafe.PlainScalars`), shared by parses."""

from __future__ import annotations

import datetime
import threading

from bot.parse.yamlpos import load_positioned
from bot.parse.yamlsafe import PlainScalars


def test_a_value_resolved_by_one_parse_serves_the_next() -> None:
    first = PlainScalars().resolve("2001-12-14")
    again = PlainScalars().resolve("2001-12-14")
    assert first == datetime.date(2001, 12, 14)
    assert again is first  # not constructed a second time


def test_long_scalars_are_not_kept() -> None:
    text = "1" * (PlainScalars.MAX_KEPT_LEN + 1)
    a, b = PlainScalars().resolve(text), PlainScalars().resolve(text)
    assert a == b == int(text)
    assert a is not b


def test_each_thread_keeps_its_own() -> None:
    here = PlainScalars().resolve("2002-01-31")
    there: list[object] = []
    worker = threading.Thread(target=lambda: there.append(PlainScalars().resolve("2002-01-31")))
    worker.start()
    worker.join()
    assert there == [here]
    assert there[0] is not here


def test_a_yaml_1_1_directive_does_not_change_what_a_scalar_means() -> None:
    # the premise of sharing: the events loader reads YAML 1.2 whatever the document says
    doc = load_positioned("%YAML 1.1\n---\na: 010\nb: yes\nc: 0o10\n")
    plain = load_positioned("a: 010\nb: yes\nc: 0o10\n")
    assert dict(doc) == dict(plain) == {"a": 10, "b": "yes", "c": 8}
