"""The runner of the suite: `python3 -m runner` measures the catalog's variants and
renders the run (run.py, with cli.py its options).  The rest is laid out as the
pipeline, one package a layer, each importing only the layers below it
(runner/tests/test_layers.py checks it):

  core      errors, formatting, ids, files, expressions, statistics, paths
  catalog   catalog/*.json loaded and checked, the contract, the sample schema
  analysis  the run folder's one reader, summaries, targets, verdicts, claims
  measure   host, plan, launcher, servers, rounds, lockstep, the stopping rule
  report    REPORT.md, terminal tables, charts (report/charts), the README's answer
  tools     counts, micro, aa, tune

A module that is a command of its own runs as `python3 -m runner.<layer>.<module>`
(catalog.catalog_cli, catalog.contract, catalog.cover, report.readme,
analysis.reproduce, tools.counts, tools.micro, tools.tune, measure.runtimes,
measure.servers, measure.host).  Run from the project's root (or with it on
PYTHONPATH).
"""
