"""analysis -- from samples to answers: the run folder's one reader, summaries,
ratios and their intervals, targets, verdicts and the seeds' claims.  Imports only
core and catalog."""
