#!/usr/bin/env python3
"""Summarizes an A/B run of bench/ab.sh: each case's build, counts and CSR
times per variant (the median over the rounds of `fenns bench`'s medians),
and each variant against the first one (its ratio, below 1 faster). With the
per-pass CSV too, the same for every pass of the build and the searches.

    python3 bench/ab_table.py runs.csv [passes.csv] [--pass SUBSTRING]

--pass keeps the passes whose call or name holds SUBSTRING ("search",
"build"). Prints Markdown tables, one row a case (a pass of a case).
"""
import csv
import statistics
import sys

COLUMNS = ["build_ms", "counts_ms", "csr_ms"]


def number(text):
    try:
        return float(text)
    except ValueError:
        return None


def collect(path, key_of, value_columns):
    """{key: {variant: {column: [values over rounds]}}}, keys and variants in file order."""
    table = {}
    variants = []
    with open(path, newline="") as f:
        for row in csv.DictReader(f):
            variant = row["variant"]
            if variant not in variants:
                variants.append(variant)
            cell = table.setdefault(key_of(row), {}).setdefault(variant, {})
            for column in value_columns:
                value = number(row.get(column, ""))
                if value is not None:
                    cell.setdefault(column, []).append(value)
    return table, variants


def median(values):
    return statistics.median(values) if values else None


def print_table(title, table, variants, columns):
    base = variants[0]
    heads = [f"{c} {v}" for c in columns for v in variants]
    ratios = [f"{c} {v}/{base}" for c in columns for v in variants[1:]]
    print(f"\n### {title}\n")
    print("| case | " + " | ".join(heads + ratios) + " |")
    print("|---" * (1 + len(heads) + len(ratios)) + "|")
    for key, cells in table.items():
        medians = {(c, v): median(cells.get(v, {}).get(c, [])) for c in columns for v in variants}
        values = ["-" if medians[(c, v)] is None else f"{medians[(c, v)]:.4f}" for c in columns for v in variants]
        quotients = []
        for c in columns:
            for v in variants[1:]:
                a, b = medians[(c, base)], medians[(c, v)]
                quotients.append("-" if not a or b is None else f"{b / a:.3f}")
        print(f"| {key} | " + " | ".join(values + quotients) + " |")


def main(args):
    pass_filter = None
    if "--pass" in args:
        i = args.index("--pass")
        if i + 1 >= len(args):
            sys.exit("--pass needs a substring")
        pass_filter = args[i + 1]
        del args[i : i + 2]
    if not args or len(args) > 2:
        sys.exit(__doc__)
    runs, variants = collect(args[0], lambda r: r["case"], COLUMNS)
    print_table("build / counts / CSR, ms (median over rounds)", runs, variants, COLUMNS)
    if len(args) == 2:
        def pass_key(row):
            return f"{row['case']}: {row['call']}, {row['pass']}"

        passes, pass_variants = collect(args[1], pass_key, ["ms"])
        if pass_filter:
            passes = {k: v for k, v in passes.items() if pass_filter in k.split(": ", 1)[1]}
        print_table("per pass, ms (median over rounds)", passes, pass_variants or variants, ["ms"])


if __name__ == "__main__":
    main(sys.argv[1:])
