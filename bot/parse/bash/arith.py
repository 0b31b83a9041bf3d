"""Values bash computes: integer arithmetic, `printf`, `awk 'BEGIN{print ...}'`, trims.

Pure functions over text and `Str` values; what they cannot compute exactly comes
back as None (or an unknown `Str`).
"""

from __future__ import annotations

import ast
import fnmatch
import math
import re
from collections.abc import Callable

from bot.parse.values import Seg, Str


def first_pos(s: Str) -> tuple[int, int]:
    for seg in s.segs:
        if seg.line > 0:
            return seg.line, seg.col
    return 0, 1


def to_int(text: str | None) -> int | None:
    if text is None:
        return None
    try:
        return int(text.strip(), 0) if text.strip() else None
    except ValueError:
        return None


def trim(text: str, pat: str, op: str) -> str:
    n = len(text)
    if op in ("%", "%%"):
        rng = range(n, -1, -1) if op == "%" else range(0, n + 1)
        for i in rng:
            if fnmatch.fnmatchcase(text[i:], pat):
                return text[:i]
        return text
    rng = range(0, n + 1) if op == "#" else range(n, -1, -1)
    for i in rng:
        if fnmatch.fnmatchcase(text[:i], pat):
            return text[i:]
    return text


_ARITH_TOKEN = re.compile(
    r"\s*(?:(\d+\.\d*|\d+)|(\$\{?[A-Za-z_]\w*\}?|[A-Za-z_]\w*)|(\*\*|<=|>=|==|!=|&&|\|\||[-+*/%()<>?:!]))"
)


def eval_arith(expr: str, var: Callable[[str], int | None]) -> int | None:
    """Evaluate bash integer arithmetic over known variables; None when unknown."""
    out: list[str] = []
    pos = 0
    expr = expr.strip()
    while pos < len(expr):
        m = _ARITH_TOKEN.match(expr, pos)
        if not m or m.end() == pos:
            return None
        pos = m.end()
        num, name, op = m.groups()
        if num:
            if "." in num or len(num) > 30:
                return None
            out.append(str(int(num)))
        elif name:
            v = var(name.strip("${}"))
            if v is None:
                return None
            out.append(f"({v})")
        elif op:
            out.append({"&&": " and ", "||": " or ", "!": " not ", "/": "//"}.get(op, op))
    if "?" in out or ":" in out:
        return None
    try:
        tree = ast.parse("".join(out), mode="eval")
    except SyntaxError:
        return None
    return _eval_node(tree.body)


def _eval_node(node: ast.AST) -> int | None:
    if isinstance(node, ast.Constant) and isinstance(node.value, int):
        return int(node.value)
    if isinstance(node, ast.UnaryOp):
        v = _eval_node(node.operand)
        if v is None:
            return None
        if isinstance(node.op, ast.USub):
            return -v
        if isinstance(node.op, ast.UAdd):
            return v
        if isinstance(node.op, ast.Not):
            return int(not v)
        return None
    if isinstance(node, ast.BinOp):
        a, b = _eval_node(node.left), _eval_node(node.right)
        if a is None or b is None:
            return None
        if isinstance(node.op, ast.Add):
            return a + b if abs(a + b) < 2**63 else None
        if isinstance(node.op, ast.Sub):
            return a - b if abs(a - b) < 2**63 else None
        if isinstance(node.op, ast.Mult):
            return a * b if abs(a * b) < 2**63 else None
        if isinstance(node.op, ast.FloorDiv):
            if b == 0:
                return None
            q = abs(a) // abs(b)
            return q if (a >= 0) == (b >= 0) else -q
        if isinstance(node.op, ast.Mod):
            if b == 0:
                return None
            return int(math.fmod(a, b))
        if isinstance(node.op, ast.Pow):
            return a**b if 0 <= b <= 64 and abs(a) < 2**16 else None
        return None
    if isinstance(node, ast.Compare) and len(node.ops) == 1:
        a, b = _eval_node(node.left), _eval_node(node.comparators[0])
        if a is None or b is None:
            return None
        op = node.ops[0]
        table = {
            ast.Lt: a < b,
            ast.LtE: a <= b,
            ast.Gt: a > b,
            ast.GtE: a >= b,
            ast.Eq: a == b,
            ast.NotEq: a != b,
        }
        for k, v in table.items():
            if isinstance(op, k):
                return int(v)
        return None
    if isinstance(node, ast.BoolOp):
        vals = [_eval_node(v) for v in node.values]
        if any(v is None for v in vals):
            return None
        if isinstance(node.op, ast.And):
            return int(all(vals))
        return int(any(vals))
    return None


_PRINTF_SPEC = re.compile(r"%(%|[-+ #0]*\d{0,3}(?:\.\d{1,2})?[sdifgeExXc])")


def printf(fmt: Str, args: list[Str]) -> Str:
    """bash `printf FORMAT ARGS` over Str values (position kept for each piece)."""
    if not fmt.known:
        return Str.unknown_of("$(printf ...)")
    text = fmt.text.replace("\\n", "\n").replace("\\t", "\t")
    line, col = first_pos(fmt)
    parts: list[Str] = []
    pos = 0
    i = 0
    for m in _PRINTF_SPEC.finditer(text):
        if m.start() > pos:
            parts.append(Str.lit(text[pos : m.start()], line, col + pos))
        spec = m.group(1)
        pos = m.end()
        if spec == "%":
            parts.append(Str.lit("%"))
            continue
        arg = args[i] if i < len(args) else Str()
        i += 1
        conv = spec[-1]
        if conv == "s":
            parts.append(arg)
            continue
        if not arg.known:
            parts.append(Str.unknown_of(arg.text, *first_pos(arg)))
            continue
        try:
            if conv in "di":
                val = "%" + spec[:-1] + "d"
                out = val % int(float(arg.text or "0"))
            else:
                out = ("%" + spec) % float(arg.text or "0")
        except (ValueError, TypeError):
            return Str.unknown_of("$(printf ...)", line, col)
        parts.append(Str((Seg(out, *first_pos(arg)),)))
    if pos < len(text):
        parts.append(Str.lit(text[pos:], line, col + pos))
    return Str.join(parts)


_AWK = re.compile(r"^\s*BEGIN\s*\{\s*print(f?)\s*(.*?)\s*;?\s*\}\s*$", re.S)


def awk_begin_print(prog: str) -> str | None:
    """`awk 'BEGIN{print EXPR}'` or `BEGIN{printf "%.2f", EXPR}` over numbers."""
    m = _AWK.match(prog)
    if not m:
        return None
    is_printf, body = m.groups()
    fmt = "%.6g"
    if is_printf:
        fm = re.match(r'^"([^"]*)"\s*,\s*(.*)$', body, re.S)
        if not fm:
            return None
        fmt, body = fm.group(1).replace("\\n", ""), fm.group(2)
        if not re.fullmatch(r"%[-+ #0]*\d{0,3}(?:\.\d{1,2})?[dfgeis]", fmt):
            return None
    if not re.fullmatch(r"[\d\s.+\-*/()]+", body):
        return None
    try:
        tree = ast.parse(body, mode="eval")
    except SyntaxError:
        return None
    val = _eval_float(tree.body)
    if val is None:
        return None
    if fmt == "%.6g" and float(val).is_integer():
        return str(int(val))
    try:
        return fmt % val
    except (TypeError, ValueError):
        return None


def _eval_float(node: ast.AST) -> float | None:
    if isinstance(node, ast.Constant) and isinstance(node.value, (int, float)):
        return float(node.value)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        v = _eval_float(node.operand)
        return None if v is None else -v
    if isinstance(node, ast.BinOp):
        a, b = _eval_float(node.left), _eval_float(node.right)
        if a is None or b is None:
            return None
        if isinstance(node.op, ast.Add):
            return a + b
        if isinstance(node.op, ast.Sub):
            return a - b
        if isinstance(node.op, ast.Mult):
            return a * b
        if isinstance(node.op, ast.Div):
            return a / b if b else None
    return None
