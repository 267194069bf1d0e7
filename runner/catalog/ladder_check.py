"""ladder_check.py -- a workload's claims.ladder (runner/analysis/ladder.py,
DESIGN section 7): its check (check_ladder) and the seed profile's versioned
variants of its rung 2 (add_variants)."""
import copy

from ..core.errors import CatalogError
from ..core.ids import variant_id, variant_label
from .catalog_check import check_known

# A claims' ladder (runner/analysis/ladder.py, DESIGN section 7): the steps' words and,
# per claim, the variants of its rungs 2-4.
LADDER_KEYS = {"about", "steps", "rungs"}
LADDER_STEPS = ("runtime", "program", "method", "n")
LADDER_RUNG_KEYS = {"shape", "method"}


def check_ladder(claims, find, where):
    """A workload's claims.ladder: {"about", "steps": {runtime, program, method,
    n: what that step changes, one line each}, "rungs": {claim id: {"shape":
    ids | why, "method": ids | why}}}, where ids are the claim's own sizes (2,
    slower and faster, for a ratio claim; 1 for an absolute one), each a
    variant of the catalog (find) in the seed profile, and why is one line
    saying why the rung is not measured.  Every ratio and absolute claim has
    its rungs and nothing else does.  find(vid) gives the variant or None."""
    lad = claims.get("ladder")
    if lad is None:
        return
    if not isinstance(lad, dict):
        raise CatalogError("%s must be an object" % where)
    check_known(lad, LADDER_KEYS, where)
    if not isinstance(lad.get("about"), str) or not lad["about"].strip():
        raise CatalogError("%s: about must say what the ladder's rungs are here" % where)
    steps = lad.get("steps")
    if not isinstance(steps, dict) or set(steps) != set(LADDER_STEPS):
        raise CatalogError("%s: steps must name exactly %s" % (where, ", ".join(LADDER_STEPS)))
    for k, text in steps.items():
        if not isinstance(text, str) or not text.strip() or "\n" in text:
            raise CatalogError("%s: steps.%s must be one line saying what changes" % (where, k))
    rungs = lad.get("rungs")
    sizes = {c.get("id"): 2 for c in claims.get("ratios") or []}
    sizes.update({c.get("id"): 1 for c in claims.get("absolute") or []})
    if not isinstance(rungs, dict):
        raise CatalogError("%s: rungs must map each claim's id to its rungs" % where)
    for cid in sorted(set(sizes) - set(rungs)):
        raise CatalogError("%s: claim %r has no rungs (every ratio and absolute claim has a ladder)"
                           % (where, cid))
    for cid in sorted(set(rungs) - set(sizes)):
        raise CatalogError("%s: rungs.%s names no ratio or absolute claim" % (where, cid))
    for cid, spec in rungs.items():
        w = "%s: rungs.%s" % (where, cid)
        if not isinstance(spec, dict) or set(spec) != LADDER_RUNG_KEYS:
            raise CatalogError("%s must be an object of exactly shape and method" % w)
        for k in sorted(LADDER_RUNG_KEYS):
            x = spec[k]
            if isinstance(x, str):
                if not x.strip() or "\n" in x:
                    raise CatalogError("%s.%s: a reason must be one line" % (w, k))
                continue
            if not isinstance(x, list) or len(x) != sizes[cid] or not all(isinstance(s, str) for s in x):
                raise CatalogError("%s.%s must be %d variant ids (the claim's) or one line saying "
                                   "why the rung is not measured, got %r" % (w, k, sizes[cid], x))
            for vid in x:
                v = find(vid)
                if v is None:
                    raise CatalogError("%s.%s: %s is not a variant of the catalog" % (w, k, vid))
                if "seed" not in v["profiles"]:
                    raise CatalogError("%s.%s: %s is not in the seed profile, which measures "
                                       "the ladders" % (w, k, vid))


def add_variants(cat, profile):
    """The seed profile's (profile's) rung 2 of each claim's ladder, into
    catalog cat (DESIGN section 7): every variant of a ladder's shape, of a language
    the claims pin a version of (claims.runtimes), once more on that
    version, the seed's, with the version in its id; the same variant as
    the runtimes profile's when that profile has it too."""
    for name, w in cat.workloads.items():
        claims = w.get("claims") or {}
        pins = {k: x for k, x in (claims.get("runtimes") or {}).items() if k != "about"}
        lad = claims.get("ladder")
        if not lad or not pins or profile not in w["profiles"]:
            continue
        for spec in lad["rungs"].values():
            if isinstance(spec["shape"], str):
                continue
            for vid in spec["shape"]:
                v = cat._by_id[vid]
                if v["lang"] not in pins:
                    continue
                nid = variant_id(dict(v, runtime=pins[v["lang"]]))
                nv = cat._by_id.get(nid)
                if nv is None:
                    nv = copy.deepcopy(v)
                    nv["runtime"] = pins[v["lang"]]
                    nv["id"], nv["label"] = nid, variant_label(nv)
                    nv["profiles"] = []
                    cat._by_id[nid] = nv
                    cat.runtime_variants.append(nv)
                if profile not in nv["profiles"]:
                    nv["profiles"].append(profile)
