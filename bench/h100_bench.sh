#!/usr/bin/env bash
# fenns bench on the H100 (issue 7): every scenario of docs/benchmarks.md, both methods, per-pass
# rows and plots. Run from the repo root on the device machine with $OUT set, in two
# parts that each fit one 10-minute call:
#   bash bench/h100_bench.sh a   # sph50 (2^20..2^26), dam, cluster, sph50 in sorted order
#   bash bench/h100_bench.sh b   # s1, s2, s3
#   bash bench/h100_bench.sh k   # user kernels (issue 8): kernel_ms beside counts_ms for
#                                # sph50, and fenns-sph at 10^6 particles (sph_log.txt, frames)
#   bash bench/h100_bench.sh c   # counting and octant (issue 10) beside fenns: sph50 1M-16M, s1,
#                                # s3, dam, cluster at 4M, and their host path
#   bash bench/h100_bench.sh r   # radix (issue 10) beside the others: sph50 1M/4M every method,
#                                # radix at sph50 16M, cluster/dam 4M and the paper's s1/s2/s3
#                                # sweeps; test_search --method radix on the GPU (search_radix.txt)
#   bash bench/h100_bench.sh m   # auto's cost model (bench/fit_auto.py): uniform sets at the
#                                # sph50 density, n 2^16..2^22, r 0.3..1.3 (1 to 108 neighbours),
#                                # fenns, counting, octant and radix each on its own
#   bash bench/h100_bench.sh p   # the paper's s1 and s3 sweeps with every method, plotted, and
#                                # auto's picks on sph50 1M/4M, s1/s3 at 5*10^5 and 4M, cluster 4M
#   bash bench/h100_bench.sh g   # counting, octant and radix on the paper's baseline grids
#                                # (--paper-grid: Table 4's 90/r cells per axis), s1 and s3
#   bash bench/h100_bench.sh t   # the README table's rows alone, fenns only (about a minute)
#   bash bench/h100_bench.sh s   # the README's summary in one call: sph50 1M/4M both methods,
#                                # fenns at 16M and at 2^26 in sorted order, s1/s3 4M, dam,
#                                # cluster 4M, fenns-sph 10^6 and 4*10^6; sph50 4M/16M/2^26,
#                                # s1 4M and dam 4M in frame order (--frame-order)
# Results land flat in $OUT: bench_<part>.csv (columns in docs/formats.md),
# passes_<part>.csv (per-pass medians), plot_s1.svg, plot_s3.svg, info.txt.
set -u
for f in .gl/*.deb; do dpkg -x "$f" /; done; ldconfig
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
B=${B:-build-gpu/bin}
part=${1:-a}
csv=$OUT/bench_$part.csv passes=$OUT/passes_$part.csv
: > "$csv.raw"; : > "$passes.raw"
bench() { # one fenns bench invocation; rows appended, headers kept once below
    "$B/fenns" bench "$@" --passes-csv /tmp/p.csv >> "$csv.raw" 2>> "$OUT/log_$part.txt"
    cat /tmp/p.csv >> "$passes.raw"
}
if [ "$part" = a ]; then
    "$B/fenns" info > "$OUT/info.txt" 2>&1
    bench --scenario sph50 --n 1048576
    bench --scenario sph50 --n 4194304
    bench --scenario sph50 --n 16777216 --no-host
    bench --scenario sph50 --n 67108864 --no-host --reps 5
    bench --scenario sph50 --n 4194304 --method fenns --sorted-order --no-host
    bench --scenario sph50 --n 16777216 --method fenns --sorted-order --no-host
    bench --scenario dam
    bench --scenario cluster
elif [ "$part" = s ]; then
    "$B/fenns" info > "$OUT/info.txt" 2>&1
    bench --scenario sph50 --n 1048576
    bench --scenario sph50 --n 4194304
    bench --scenario sph50 --n 16777216 --method fenns --no-host
    bench --scenario s1 --n 4194304 --method fenns
    bench --scenario s3 --n 4194304 --method fenns
    bench --scenario dam --n 4194304 --method fenns
    bench --scenario cluster --n 4194304 --method fenns --no-host
    bench --scenario sph50 --n 4194304 --method fenns --frame-order
    bench --scenario sph50 --n 16777216 --method fenns --no-host --frame-order
    bench --scenario s1 --n 4194304 --method fenns --frame-order
    bench --scenario dam --n 4194304 --method fenns --no-host --frame-order
    # 2^26 last: rows measured right after these long runs read up to 2x slow (clocks)
    bench --scenario sph50 --n 67108864 --method fenns --sorted-order --no-host --reps 3
    bench --scenario sph50 --n 67108864 --method fenns --sorted-order --no-host --reps 3 --frame-order
    "$B/fenns-sph" --particles 1000000 --steps 1000 --frames 0 > "$OUT/sph_log.txt" 2>&1
    "$B/fenns-sph" --particles 4000000 --steps 100 --frames 0 >> "$OUT/sph_log.txt" 2>&1
elif [ "$part" = t ]; then
    # The README table's rows alone, fenns only (session 38's v22 table)
    "$B/fenns" info > "$OUT/info.txt" 2>&1
    bench --scenario sph50 --n 1048576 --method fenns
    bench --scenario sph50 --n 4194304 --method fenns
    bench --scenario sph50 --n 16777216 --method fenns --no-host
    bench --scenario s1 --n 4194304 --radius 1 --method fenns
    bench --scenario s1 --n 4194304 --radius 0.2 --method fenns
    bench --scenario s3 --n 4194304 --radius 0.3 --method fenns
    bench --scenario dam --n 4194304 --method fenns
    bench --scenario cluster --n 4194304 --method fenns --no-host
    bench --scenario sph50 --n 4194304 --method fenns --no-host --frame-order
    bench --scenario sph50 --n 16777216 --method fenns --no-host --frame-order
    bench --scenario s1 --n 4194304 --radius 1 --method fenns --no-host --frame-order
    bench --scenario s1 --n 4194304 --radius 0.2 --method fenns --no-host --frame-order
    bench --scenario dam --n 4194304 --method fenns --no-host --frame-order
    bench --scenario sph50 --n 67108864 --method fenns --sorted-order --no-host --reps 3
    bench --scenario sph50 --n 67108864 --method fenns --sorted-order --no-host --reps 3 --frame-order
    bench --scenario sph50 --n 67108864 --method fenns --no-host --reps 3
elif [ "$part" = c ]; then
    # counting and octant (issue 10) beside fenns in one run: sph50, the paper's s1/s3, dam, cluster
    bench --scenario sph50 --n 1048576 --no-host
    bench --scenario sph50 --n 4194304 --no-host
    bench --scenario sph50 --n 16777216 --method counting --no-host
    bench --scenario sph50 --n 16777216 --method fenns --no-host
    bench --scenario sph50 --n 4194304 --method octant --no-host
    bench --scenario sph50 --n 16777216 --method octant --no-host
    for m in fenns counting octant; do
        bench --scenario s1 --n 4194304 --method $m --no-host
        bench --scenario s3 --n 4194304 --method $m --no-host
        bench --scenario dam --n 4194304 --method $m --no-host
        bench --scenario cluster --n 4194304 --method $m --no-host
    done
    bench --scenario s1 --n 4194304 --radius 0.2 --method counting
    bench --scenario sph50 --n 1048576 --method counting
    bench --scenario sph50 --n 1048576 --method octant
elif [ "$part" = r ]; then
    "$B/fenns" info > "$OUT/info.txt" 2>&1
    bench --scenario sph50 --n 1048576 --no-host
    bench --scenario sph50 --n 4194304 --no-host
    bench --scenario sph50 --n 16777216 --method radix --no-host
    bench --scenario cluster --n 4194304 --method radix --no-host
    bench --scenario dam --n 4194304 --method radix --no-host
    bench --scenario s1 --method radix --no-host
    bench --scenario s2 --method radix --no-host
    bench --scenario s3 --method radix --no-host
    bench --scenario sph50 --n 1048576 --method radix
    timeout 150 "$B/test_search" --method radix > "$OUT/search_radix.txt" 2>&1; echo "rc=$?" >> "$OUT/search_radix.txt"
elif [ "$part" = p ]; then
    "$B/fenns" info --n 4194304 --radius 1 --domain 0,0,0,70.57,70.57,70.57 > "$OUT/info.txt" 2>&1
    "$B/fenns" bench --scenario s1 --n 524288 --method all --no-host > /dev/null 2>&1  # warm-up: clocks up
    bench --scenario s1 --method all --no-host --plot "$OUT/plot_s1.svg"
    bench --scenario s3 --method all --no-host --plot "$OUT/plot_s3.svg"
    for n in 1048576 4194304; do bench --scenario sph50 --n $n --method auto --no-host; done
    for s in s1 s3; do for n in 524288 4194304; do bench --scenario $s --n $n --method auto --no-host; done; done
    bench --scenario cluster --n 4194304 --method auto --no-host
elif [ "$part" = g ]; then
    "$B/fenns" bench --scenario s1 --n 524288 --method counting --no-host > /dev/null 2>&1  # warm-up: clocks up
    for m in counting octant radix; do
        bench --scenario s1 --method $m --paper-grid --no-host
        bench --scenario s3 --method $m --paper-grid --no-host
    done
elif [ "$part" = m ]; then
    "$B/fenns" info > "$OUT/info.txt" 2>&1
    for n in 65536 262144 1048576 4194304; do
        for r in 0.3 0.5 0.7 1 1.3; do
            for m in fenns counting octant radix; do
                bench --scenario sph50 --n $n --radius $r --method $m --no-host --reps 7
            done
        done
    done
elif [ "$part" = k ]; then
    bench --scenario sph50 --n 1048576 --no-host
    bench --scenario sph50 --n 4194304 --no-host
    bench --scenario sph50 --n 16777216 --method fenns --no-host
    bench --scenario dam --no-host
    "$B/fenns-sph" --particles 1000000 --steps 3000 --frames 3 --out "$OUT" > "$OUT/sph_log.txt" 2>&1
    "$B/fenns-sph" --particles 4000000 --steps 100 --frames 0 >> "$OUT/sph_log.txt" 2>&1
else
    bench --scenario s1 --plot "$OUT/plot_s1.svg"
    bench --scenario s2 --no-host
    bench --scenario s3 --plot "$OUT/plot_s3.svg"
fi
awk 'FNR == 1 || !/^method,/' "$csv.raw" > "$csv"; awk 'NR == 1 || !/^method,/' "$passes.raw" > "$passes"
rm -f "$csv.raw" "$passes.raw"
cat "$csv"
