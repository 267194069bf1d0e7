"""tools -- the standalone commands beside `python3 -m runner`: counts (Valgrind),
micro (micro-benchmarks), aa (A/A checks) and tune.  The top layer but the
runner's own entry (runner/run.py, runner/cli.py)."""
