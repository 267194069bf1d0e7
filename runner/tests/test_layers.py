"""The runner's layout is its pipeline (DESIGN section 2): core, catalog, analysis,
measure, report, tools, then the runner's own entry at the top.  A module imports
only its own layer and the layers below it, and none is over 500 lines."""
import ast
import os
import unittest

from ..core import paths

LAYERS = ["core", "catalog", "analysis", "measure", "report", "tools"]
TOP = {"__init__", "__main__", "run", "cli"}     # runner/*.py: the entry, above every layer
MAX_LINES = 500


def modules(root=paths.RUNNER):
    """{dotted module name: path} of every module of the runner but its tests."""
    found = {}
    for folder, dirs, files in os.walk(root):
        dirs[:] = sorted(d for d in dirs if d not in ("tests", "__pycache__"))
        for f in sorted(files):
            if f.endswith(".py"):
                rel = os.path.relpath(os.path.join(folder, f), os.path.dirname(root))
                name = rel[:-3].replace(os.sep, ".")
                found[name[:-len(".__init__")] if name.endswith(".__init__") else name] = \
                    os.path.join(folder, f)
    return found


def layer(name):
    """The layer index of a dotted module name: 0 for core ... len(LAYERS) for the top."""
    parts = name.split(".")
    if len(parts) >= 2 and parts[1] in LAYERS:
        return LAYERS.index(parts[1])
    return len(LAYERS)


def imports(name, path):
    """(line, dotted module) of every runner module `name` imports, at any depth of the
    file (an import inside a function counts as one at the top)."""
    is_pkg = path.endswith("__init__.py")
    pkg = name if is_pkg else name.rsplit(".", 1)[0]
    with open(path, encoding="utf-8") as f:
        tree = ast.parse(f.read(), path)
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = pkg.split(".")
                base = base[:len(base) - (node.level - 1)]
                mod = ".".join(base + ([node.module] if node.module else []))
            else:
                mod = node.module or ""
            if mod == "runner" or mod.startswith("runner."):
                for a in node.names:
                    yield node.lineno, mod + "." + a.name if mod.count(".") < 2 else mod
        elif isinstance(node, ast.Import):
            for a in node.names:
                if a.name.startswith("runner."):
                    yield node.lineno, a.name


def upward(found):
    """Lines 'module:line imports target (layer a above layer b)' for every upward import."""
    bad = []
    for name, path in sorted(found.items()):
        for line, target in imports(name, path):
            if layer(target) > layer(name):
                bad.append("%s:%d imports %s, a layer above it (%s over %s)" % (
                    os.path.relpath(path, paths.ROOT), line, target,
                    (LAYERS + ["the entry"])[layer(target)], (LAYERS + ["the entry"])[layer(name)]))
    return bad


class LayersTest(unittest.TestCase):
    def test_no_module_imports_a_layer_above_its_own(self):
        found = modules()
        self.assertGreater(len(found), 50)
        self.assertEqual(upward(found), [])

    def test_every_module_is_in_a_layer_or_is_the_entry(self):
        flat = [n for n in modules() if n.count(".") == 1 and n.split(".")[1] not in TOP
                and n.split(".")[1] not in LAYERS]
        self.assertEqual(flat, [], "a new module goes into one of the layers %s" % LAYERS)

    def test_no_module_is_over_500_lines(self):
        long = []
        for name, path in sorted(modules().items()):
            with open(path, encoding="utf-8") as f:
                n = sum(1 for _ in f)
            if n > MAX_LINES:
                long.append("%s: %d lines" % (os.path.relpath(path, paths.ROOT), n))
        self.assertEqual(long, [])

    def test_an_upward_import_is_found(self):
        # The check itself can fail: a core module importing report, lazily.
        import tempfile
        with tempfile.TemporaryDirectory() as d:
            root = os.path.join(d, "runner")
            for pkg in ("core", "report"):
                os.makedirs(os.path.join(root, pkg))
                open(os.path.join(root, pkg, "__init__.py"), "w").close()
            with open(os.path.join(root, "core", "fmt.py"), "w") as f:
                f.write("def f():\n    from ..report import render\n    return render\n")
            with open(os.path.join(root, "report", "render.py"), "w") as f:
                f.write("from ..core import fmt\n")
            bad = upward(modules(root))
        self.assertEqual(len(bad), 1)
        self.assertIn("imports runner.report.render, a layer above it (report over core)",
                      bad[0])


if __name__ == "__main__":
    unittest.main()
