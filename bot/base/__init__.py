"""The leaf layer: pure values every other layer shares (spans, globs, trees, knowledge).

It imports nothing from the project; `bot.parse`, `bot.core` and the rules import it
(the import contract in pyproject.toml keeps it that way).
"""
