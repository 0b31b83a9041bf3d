"""Trees and globs, re-exported from the leaf layer (`bot.base`) for the edges and rules."""

from bot.base.glob import glob_match as glob_match
from bot.base.tree import MemoryTree as MemoryTree
from bot.base.tree import Tree as Tree
from bot.base.tree import content_id as content_id
