"""core -- what every layer uses: errors and exit codes, number formatting, variant
ids, files, the catalog's small expressions, statistics, and the project's paths.
It imports nothing of the runner's."""
