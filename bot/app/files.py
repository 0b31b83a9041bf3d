"""Files on disk as a command line names them, light enough for `bot`'s start-up.

`locate(PATH)` finds a PATH argument's repository root (`bot lint PATH` checks a file
with its path relative to that root); `SourceError` is how reading a repository, a
ref or a file a user named fails (one line, exit 2).
"""

from __future__ import annotations

from bot.sources import SourceError as SourceError
from bot.sources import locate as locate
