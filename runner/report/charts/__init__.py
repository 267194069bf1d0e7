"""The charts of a run (README.md here lists them): one module per chart, and
what they share: style.py (the look), rundata.py (what a chart reads, and the
command) and layout.py (panels, axes, sidecar and the check of the figure).  Each chart module is also a command,
`python3 -m runner.report.charts.<chart> --help`."""
