"""The charts of a run (README.md here lists them): one module per chart, and
style.py, what they share.  Each chart module is also a command,
`python3 -m runner.charts.<chart> --help`."""
