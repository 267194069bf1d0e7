"""The runner of the suite, one package: `python3 -m runner` measures the
catalog's variants and renders the run (run.py), `python3 -m runner.<module>`
runs a module that is a command of its own (catalog, contract, cover, readme,
reproduce, counts, micro, tune, runtimes, servers, host), and runner/charts/
draws the charts.  Run from the project's root (or with it on PYTHONPATH).

Each module imports only modules below it: run.py at the top; cli, plan,
measure and render under it; the summaries, the catalog and the statistics
at the bottom.  No module of the runner imports run.py.
"""
