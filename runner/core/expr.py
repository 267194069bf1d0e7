"""expr.py -- the catalog's small integer expressions (runner/catalog/catalog.py's
module doc: checks, warmup, passes, a profile's warmup_iterations): parsed,
their names checked, evaluated by a tiny walker (never eval()), and the
warm-up and passes counts they give at an N.
"""
import ast
import re

from .errors import CatalogError

# The most timed passes of one process (the programs' AB_PASSES_MAX,
# MaxPasses, MAX_PASSES; runner/catalog/contract.py's MAX_PASSES).
MAX_PASSES = 10000
# The largest N of the catalog (a figure beyond it is a typo; catalog_check.py
# has the other upper bounds).
MAX_ITERATIONS = 10 ** 9
# The deepest an expression's tree may be (the catalog's deepest is 3 levels):
# the parser, the name check and evaluate() walk it by recursion, and a check
# of 3,000 `1+` terms once ended the runner in a RecursionError while it
# checked a program's line.  Longer than this is refused when it is parsed.
MAX_DEPTH = 50


def _check_names(node, where):
    """The names an expression uses; CatalogError when it is more than integers,
    names, len()/int()/min()/max() calls and + - * //."""
    names = set()

    def walk(n):
        if isinstance(n, ast.Expression):
            walk(n.body)
        elif isinstance(n, ast.BinOp) and isinstance(n.op, (ast.Add, ast.Sub, ast.Mult, ast.FloorDiv)):
            walk(n.left)
            walk(n.right)
        elif isinstance(n, ast.Constant) and type(n.value) is int:
            pass
        elif isinstance(n, ast.Name):
            names.add(n.id)
        elif (isinstance(n, ast.Call) and isinstance(n.func, ast.Name)
              and n.func.id in ("len", "int") and len(n.args) == 1 and not n.keywords):
            walk(n.args[0])
        elif (isinstance(n, ast.Call) and isinstance(n.func, ast.Name)
              and n.func.id in ("min", "max") and len(n.args) >= 2 and not n.keywords):
            for a in n.args:
                walk(a)
        else:
            raise CatalogError("%s: only integers, names, len(), int(), min(), max(), + - * // "
                               "are allowed, not %s" % (where, type(n).__name__))
    walk(node)
    return names


def parse_check(text, where):
    """The parsed expression of a check (ast.Expression) and the names it uses."""
    if not isinstance(text, str):
        raise CatalogError("%s: a check is a string expression, got %r" % (where, text))
    try:
        tree = ast.parse(text, mode="eval")
    except SyntaxError as e:
        raise CatalogError("%s: %r is not an expression (%s)" % (where, text[:80], e.msg)) from None
    except (RecursionError, MemoryError, ValueError):
        # Python's parser gives up on deep nesting (RecursionError, MemoryError)
        # and on an integer of more than 4,300 digits (ValueError).
        raise CatalogError("%s: %r... is too long or nested too deeply to be a check "
                           "(at most %d levels)" % (where, text[:40], MAX_DEPTH)) from None
    if _depth(tree) > MAX_DEPTH:
        raise CatalogError("%s: %r... is nested %d levels deep; a check may have at most %d"
                           % (where, text[:40], _depth(tree), MAX_DEPTH))
    return tree, _check_names(tree, where)


def _depth(tree):
    """The depth of an ast tree, walked without recursion."""
    deepest, todo = 0, [(tree, 1)]
    while todo:
        node, d = todo.pop()
        deepest = max(deepest, d)
        todo += [(child, d + 1) for child in ast.iter_child_nodes(node)]
    return deepest


def evaluate(tree, env):
    """The integer value of a parsed check over env ({name: int or str}); raises
    ValueError with a sentence when a name is unknown or a type is wrong.  A tiny
    walker over the nodes parse_check allowed: never eval()."""
    def ev(n):
        if isinstance(n, ast.Expression):
            return ev(n.body)
        if isinstance(n, ast.Constant):
            return n.value
        if isinstance(n, ast.Name):
            if n.id not in env:
                raise ValueError("unknown name %r" % n.id)
            return env[n.id]
        if isinstance(n, ast.Call) and n.func.id in ("min", "max"):
            args = [ev(a) for a in n.args]
            if not all(type(a) is int for a in args):
                raise ValueError("%s() of %r: only integers" % (n.func.id, args))
            return min(args) if n.func.id == "min" else max(args)
        if isinstance(n, ast.Call):
            arg = ev(n.args[0])
            if n.func.id == "len":
                if not isinstance(arg, str):
                    raise ValueError("len() of %r, not a text" % (arg,))
                return len(arg.encode("utf-8"))
            if isinstance(arg, int):
                return arg
            if not re.match(r"-?[0-9]+\Z", str(arg)):
                raise ValueError("int() of %r, not a decimal number" % (arg,))
            return int(arg)
        left, right = ev(n.left), ev(n.right)
        if type(left) is not int or type(right) is not int:
            raise ValueError("arithmetic on %r and %r: only integers" % (left, right))
        if isinstance(n.op, ast.Add):
            return left + right
        if isinstance(n.op, ast.Sub):
            return left - right
        if isinstance(n.op, ast.Mult):
            return left * right
        if right == 0:
            raise ValueError("division by zero")
        return left // right
    return ev(tree)


def warmup_expr(text, where):
    """A warm-up expression, over `iterations` alone (CatalogError otherwise);
    returns it."""
    _, used = parse_check(text, where)
    if used - {"iterations"}:
        raise CatalogError("%s: %r may name only iterations (the run's N), not %s"
                           % (where, text, ", ".join(sorted(used - {"iterations"}))))
    return text


def warmup_for(text, n, where="warmup"):
    """The warm-up operations an expression gives for N = n: an integer from 0 to
    MAX_ITERATIONS (CatalogError otherwise)."""
    return _count_for(text, n, where, "warmup", 0, MAX_ITERATIONS)


def passes_for(text, n, where="passes"):
    """The timed passes a process runs by an expression at N = n: an integer from 1
    to MAX_PASSES (CatalogError otherwise)."""
    return _count_for(text, n, where, "passes", 1, MAX_PASSES)


def warmup_round_n(text, n, where="warmup_iterations"):
    """The N of a warm-up round's runs by a profile's expression, for a
    workload whose N is n: an integer from 1 to n (CatalogError otherwise)."""
    return _count_for(text, n, where, "warmup_iterations", 1, n)


def _count_for(text, n, where, what, low, high):
    """What an expression over iterations gives at N = n: an integer from low
    to high (CatalogError otherwise)."""
    tree, _ = parse_check(text, where)
    try:
        w = evaluate(tree, {"iterations": n})
    except ValueError as e:
        raise CatalogError("%s: %s %r at N = %d: %s" % (where, what, text, n, e)) from None
    if type(w) is not int or not low <= w <= high:
        raise CatalogError("%s: %s %r gives %r at N = %d, not an integer from %d to %d"
                           % (where, what, text, w, n, low, high))
    return w


def flag_key(flag):
    """The name a check uses for a workload flag: --delay-ms -> delay_ms."""
    return flag.lstrip("-").replace("-", "_")

