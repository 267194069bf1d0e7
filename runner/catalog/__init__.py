"""catalog -- the catalog's code: loading and checking catalog/*.json, expanding
matrices into variants, the contract a program's result line must keep, and the
sample schema of a run folder.  Imports only core."""
