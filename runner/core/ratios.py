"""ratios.py -- which of a summary row's ratios a chart draws: the ratio to its
cross-language baseline (the C callback variant of its mode), or to the
baseline of its own language (C vs C, Node vs Node, Go vs Go).  Both come from
the summary's round-paired ratio fields (runner/analysis/summary.py); this module only
picks, so the charts and the runner's choice of which charts to draw agree.
"""


def lang_of(vid):
    """The language of a variant id (<workload>/<lang>[@<version>]/<name>@<backend>),
    or None."""
    parts = (vid or "").split("/")
    return parts[1].split("@")[0] if len(parts) > 2 else None


def _fields(r, prefix):
    base = r.get(prefix + "baseline")
    return {"baseline": base, "label": r.get(prefix + "baseline_label") or base,
            "ratio": r.get(prefix + "ratio"), "low": r.get(prefix + "ratio_ci_low"),
            "high": r.get(prefix + "ratio_ci_high"),
            "significant": r.get(prefix + "significant"),
            "p": r.get(prefix + "p_value"), "is_baseline": base == r["variant"],
            # The difference per operation in ns with its CI, when the summary has it.
            "diff": r.get(prefix + "diff_per_op_ns"),
            "diff_low": r.get(prefix + "diff_per_op_ns_ci_low"),
            "diff_high": r.get(prefix + "diff_per_op_ns_ci_high")}


def against_baseline(r):
    """r's ratio to its cross-language baseline, or None when it has none."""
    return _fields(r, "") if r.get("baseline") else None


def same_language(r):
    """r against the baseline of its own language: the same-language ratio
    (lang_*) when its baseline is of r's language, else the cross-language one
    when that is (a C variant against C callbacks); None when r has no baseline
    of its own language."""
    for prefix in ("lang_", ""):
        base = r.get(prefix + "baseline")
        if base and lang_of(base) == r["lang"]:
            return _fields(r, prefix)
    return None


PICKS = {"against_baseline": against_baseline, "same_language": same_language}


def has_ratio(rows, pick):
    """True when one of rows has a ratio by PICKS[pick]."""
    return any((PICKS[pick](r) or {}).get("ratio") is not None for r in rows)
