"""python3 -m runner -- the runner (run.py): measure, summarise, chart, report."""
import sys

from .run import main

sys.exit(main(sys.argv[1:]))
