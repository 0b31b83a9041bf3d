"""A symbolic bash interpreter over tree-sitter-bash syntax trees. Pure.

It does not run anything. It walks a recipe script the way bash would and
keeps, for every path through the script that matters, what each variable,
array, exported variable and heredoc-written file holds, as `Str` values
that remember where they were written. Conditions it can decide from known
values pick one arm; conditions on the environment (`EVAL_ONLY`, `CONC`,
`KV_OFFLOADING`, ...) fork the path and record the assumption, so both arms
of `if [ "$EVAL_ONLY" = "true" ]` become separate *variants*, consistent
with later tests of the same variable. Every executed command is reported to
a callback with its expanded words and environment; the recipe model picks
out the engine launches.

Limits keep hostile scripts cheap: a cap on live paths, on function-call
depth and on syntax-tree depth. What cannot be resolved stays symbolic.

The package, by concern (each layer of `Interpreter` builds on the one before):

    syntax.py       tree-sitter-bash: a parser per thread, queries, node text
    state.py        a path (`State`), its facts (`Assumption`), `Command`, `InterpreterProblem`, limits
    paths.py        path bookkeeping: last uses, pruning, merging, joining paths
    arith.py        values bash computes: `$(( ))`, `printf`, `awk 'BEGIN{...}'`, trims
    testexpr.py     test expressions read as bash reads them (`Test`, `Operand`)
    base.py         `Walker`: the script, the options, what one run builds up
    expand.py       `Expansion`: words, parameters, quoting, command substitutions
    conditions.py   `Conditions`: a test's truth on a path and the facts of each arm
    commands.py     `Commands`: assignments, simple commands, builtins, redirections
    interpreter.py  `Interpreter`: statements, control flow, the paths through a script
"""

from __future__ import annotations

from bot.base.problem import Problem as Problem
from bot.parse.bash.arith import awk_begin_print as awk_begin_print
from bot.parse.bash.arith import eval_arith as eval_arith
from bot.parse.bash.arith import printf as printf
from bot.parse.bash.interpreter import Interpreter as Interpreter
from bot.parse.bash.state import MAX_PATHS as MAX_PATHS
from bot.parse.bash.state import Assumption as Assumption
from bot.parse.bash.state import Command as Command
from bot.parse.bash.state import InterpreterProblem as InterpreterProblem
from bot.parse.bash.state import State as State
from bot.parse.bash.syntax import parse_tree as parse_tree
