"""paths.py -- where the project's folders are, found once from this file's place
(runner/core/paths.py): the project root, the runner package, and catalog/, the
catalog's data (suite.json and one file a workload)."""
import os

RUNNER = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ROOT = os.path.dirname(RUNNER)
CATALOG = os.path.join(ROOT, "catalog")
