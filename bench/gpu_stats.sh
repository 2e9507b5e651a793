#!/usr/bin/env bash
# `fenns neighbors --stats` on a real GPU (the device machine): uniform sets
# from docs/benchmarks.md's generator, both variants, 5 runs each, plus the CLI
# correctness test (CLI output against the CPU reference) on that GPU.
# Usage: bench/gpu_stats.sh BIN_DIR OUT_DIR
set -u
B=$1
OUT=$2
mkdir -p "$OUT" /tmp/fenns-points
"$B/fenns" info > "$OUT/info.txt" 2>&1
# name n scene radius
cases="u1m-s100 1048576 100 1
u1m-sph50 1048576 44.4 1
u4m-s1 4194304 180 1"
echo "case,method,run,n,radius,avg_neighbors,build_ms,search_ms,lists_ms,gpu_memory_bytes" > "$OUT/stats.csv"
echo "$cases" | while read -r name n scene r; do
  f=/tmp/fenns-points/$name.f32
  "$B/make_points" uniform "$n" "$scene" "$f" || exit 1
  for m in fenns fenns-paper; do
    for run in 1 2 3 4 5 6; do
      "$B/fenns" neighbors --input "$f" --radius "$r" --method "$m" --stats > /dev/null 2> /tmp/fenns-points/stats.txt
      rc=$?
      cat /tmp/fenns-points/stats.txt >> "$OUT/stats_raw.txt"
      if [ $rc -ne 0 ]; then echo "$name $m run $run failed rc=$rc" >> "$OUT/stats_raw.txt"; continue; fi
      # run 1 is the warm-up (pipeline creation, driver caches)
      [ "$run" = 1 ] && continue
      awk -v c="$name" -v m="$m" -v run="$run" -v n="$n" -v r="$r" '
        $1=="avg_neighbors"{a=$2} $1=="build_ms"{b=$2} $1=="search_ms"{s=$2} $1=="lists_ms"{l=$2} $1=="gpu_memory_bytes"{g=$2}
        END{print c","m","run","n","r","a","b","s","l","g}' /tmp/fenns-points/stats.txt >> "$OUT/stats.csv"
    done
  done
done
"$B/test_cli" "$B/fenns" /tmp/fenns-cli > "$OUT/test_cli.txt" 2>&1; echo "test_cli rc=$?" >> "$OUT/test_cli.txt"
"$B/test_plan" > "$OUT/test_plan.txt" 2>&1
