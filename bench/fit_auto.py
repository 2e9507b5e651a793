#!/usr/bin/env python3
"""Fits the cost model of `--method auto` (src/method_choice.c) to `fenns bench` CSVs.

Each method's build + counts time on uniform sets is modelled as
    ms = a + b * n + c * n * k,   k = n / V * 4/3 pi r^3   (the expected neighbours),
fitted by least squares on relative error (rows weigh 1 / ms). Only the uniform
scenarios (s1, s2, s3, sph50) enter, where k follows from n, r and the box alone, as
auto sees them. Prints the coefficients as the C table and each row's fit.

    python3 bench/fit_auto.py bench/results/2026-11-24_h100_bench_s1_methods.csv \\
        bench/results/2026-11-24_h100_bench_s3_methods.csv bench/results/2026-11-24_h100_bench_r.csv \\
        bench/results/2026-11-24_h100_bench_m.csv
"""
import csv
import math
import sys

METHODS = ["fenns", "fenns-paper", "counting", "octant", "radix"]


def expected_neighbours(n, r, scene):
    return n / scene ** 3 * 4.0 / 3.0 * math.pi * r ** 3


def solve3(m, v):
    """Gaussian elimination with partial pivoting for a 3x3 system."""
    a = [row[:] + [v[i]] for i, row in enumerate(m)]
    for col in range(3):
        p = max(range(col, 3), key=lambda i: abs(a[i][col]))
        a[col], a[p] = a[p], a[col]
        for i in range(3):
            if i != col:
                f = a[i][col] / a[col][col]
                a[i] = [x - f * y for x, y in zip(a[i], a[col])]
    return [a[i][3] / a[i][i] for i in range(3)]


def main(paths):
    rows = {m: {} for m in METHODS}
    for path in paths:
        with open(path) as f:
            for row in csv.DictReader(f):
                if row["method"] not in rows or row["scenario"] not in ("s1", "s2", "s3", "sph50"):
                    continue
                n, r, scene = int(row["n"]), float(row["radius"]), float(row["scene"])
                ms = float(row["build_ms"]) + float(row["counts_ms"])
                # s2 repeats s1's sets; one row per (method, n, r, scene): the later file wins
                rows[row["method"]][(n, r, scene)] = (n, expected_neighbours(n, r, scene), ms)
    print("/* method: a (ms), b (ms per particle), c (ms per particle and neighbour) */")
    for method in METHODS:
        data = list(rows[method].values())
        if len(data) < 3:
            print(f"/* {method}: too few rows */")
            continue
        ata = [[0.0] * 3 for _ in range(3)]
        atb = [0.0] * 3
        for n, k, ms in data:
            x = [1.0 / ms, n / ms, n * k / ms]  # each row divided by its time: relative error
            for i in range(3):
                atb[i] += x[i]
                for j in range(3):
                    ata[i][j] += x[i] * x[j]
        a, b, c = solve3(ata, atb)
        errors = [abs(a + b * n + c * n * k - ms) / ms for n, k, ms in data]
        print(f"    {{{a:.4g}, {b:.4g}, {c:.4g}}}, /* {method}: {len(data)} rows, "
              f"median error {sorted(errors)[len(errors) // 2]:.0%}, largest {max(errors):.0%} */")
        worst = max(data, key=lambda d: abs(a + b * d[0] + c * d[0] * d[1] - d[2]) / d[2])
        print(f"    /*   worst: n {worst[0]} k {worst[1]:.3g}: {worst[2]:.3f} ms measured, "
              f"{a + b * worst[0] + c * worst[0] * worst[1]:.3f} fitted */")


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    main(sys.argv[1:])
