"""variant_check.py -- the checks of a loaded catalog that span its variants: every
language has its empty start-up program, every server is written in a language of
the catalog, and a server's port flag is no flag the program already takes.
catalog.py runs them once the workload files are read; the checks of one file
are catalog_check.py's and workload_check.py's.
"""
import os

from .catalog_check import CONTRACT_FLAGS, show_path
from ..core.errors import CatalogError


def check_startup_langs(suite, variants, path):
    """With suite.json's startup, every language of the variants has its empty program."""
    progs = (suite.get("startup") or {}).get("programs")
    if progs is None:
        return
    missing = sorted({v["lang"] for v in variants} - set(progs))
    if missing:
        raise CatalogError("%s: startup.programs has no empty program of %s (a language of "
                           "the catalog's variants)" % (
                               show_path(os.path.join(path, "suite.json")), ", ".join(missing)))


def check_port_flag(v, flags, path):
    """A variant's server's port_flag, which the runner appends to the
    client's command with the round's port, is neither a flag of the contract
    (`--iterations` would take the port for N) nor one of the workload's
    (given twice, the port would win over the catalog's value)."""
    server = v["requires"].get("server")
    flag = server and server.get("port_flag")
    if flag and (flag in CONTRACT_FLAGS or flag in flags):
        raise CatalogError("%s (%s): requires.server.port_flag %s is %s, which the runner "
                           "gives the program already" % (
                               path, v["id"], flag, "a flag of the program contract"
                               if flag in CONTRACT_FLAGS else "a flag of the workload"))


def check_server_langs(variants, path):
    """Every server's lang is a language of the catalog's variants."""
    langs = sorted({v["lang"] for v in variants})
    for v in variants:
        server = v["requires"].get("server")
        if server and server["lang"] not in langs:
            raise CatalogError("%s (%s): requires.server.lang %r is not a language of the "
                               "catalog's variants (%s)" % (
                                   show_path(os.path.join(path, v["workload"] + ".json")),
                                   v["id"], server["lang"], ", ".join(langs)))
