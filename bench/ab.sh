#!/usr/bin/env bash
# An A/B run on the device machine: the variants packed by bench/ab_pack.sh,
# each case benchmarked by every variant in turn, in ROUNDS rounds whose order
# alternates (the first variant first, then last), all in one process tree on
# one warm GPU, so that a change is read against its base on the same card at
# the same clocks. Run from the repository root with $OUT set:
#   bash bench/ab.sh exp/NAME.tar.xz [CASES_FILE]
# CASES_FILE: one case a line, the `fenns bench` options that pick a set
# ("--scenario sph50 --n 4194304 --frame-order"); the default is the sets the
# issue's table and the per-pass profile watch, below. Settings (environment):
#   METHOD (fenns), ROUNDS (2), REPS (bench's default), LIMIT (seconds, 570:
#   cases not begun by then are skipped and said so in log.txt), BENCH (extra
#   `fenns bench` options, e.g. "--sorted-order").
# Results in $OUT/ab: runs.csv (round, variant, case, then bench's columns),
# passes.csv (round, variant, case, then the per-pass columns), variants.txt,
# gpu.txt, log.txt. Summarize here with
#   python3 bench/ab_table.py runs.csv [passes.csv]
set -u
pack=${1:?usage: bench/ab.sh exp/NAME.tar.xz [CASES_FILE]}
cases_file=${2:-}
for f in .gl/*.deb; do [ -e "$f" ] && dpkg -x "$f" /; done
ldconfig 2> /dev/null
nvidia_icd=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
[ -e "$nvidia_icd" ] && export VK_DRIVER_FILES=$nvidia_icd
start=$(date +%s)
work=/tmp/fenns-ab-run
rm -rf "$work"
mkdir -p "$work" "$OUT/ab"
tar xJf "$pack" -C "$work"
dir=$(find "$work" -mindepth 1 -maxdepth 1 -type d | head -n 1)
cp "$dir/variants.txt" "$OUT/ab/variants.txt"
read -r -a variants <<< "$(cut -d: -f1 "$dir/variants.txt" | tr '\n' ' ')"
if [ -n "$cases_file" ]; then
    mapfile -t cases < "$cases_file"
else
    cases=("--scenario sph50 --n 4194304" "--scenario sph50 --n 1048576" "--scenario sph50 --n 16777216"
        "--scenario sph50 --n 4194304 --frame-order" "--scenario s1 --n 4194304 --radius 1"
        "--scenario s1 --n 4194304 --radius 0.2" "--scenario s3 --n 4194304 --radius 0.3"
        "--scenario dam --n 4194304" "--scenario cluster --n 4194304")
fi
method=${METHOD:-fenns} rounds=${ROUNDS:-2} limit=${LIMIT:-570}
reps=()
[ -n "${REPS:-}" ] && reps=(--reps "$REPS")
{ nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv 2>&1 || true
  "$dir/${variants[0]}/fenns" info 2>&1 | head -n 4; } > "$OUT/ab/gpu.txt"
runs=$OUT/ab/runs.csv passes=$OUT/ab/passes.csv log=$OUT/ab/log.txt
: > "$runs"
: > "$passes"
: > "$log"
# Clocks up before the first measured case (DESIGN: an idle GPU reads slow).
"$dir/${variants[0]}/fenns" bench --scenario sph50 --n 1048576 --method "$method" --no-host --reps 5 > /dev/null 2>&1
for ((round = 1; round <= rounds; ++round)); do
    order=("${variants[@]}")
    if ((round % 2 == 0)); then
        order=()
        for ((i = ${#variants[@]} - 1; i >= 0; --i)); do order+=("${variants[i]}"); done
    fi
    for c in "${cases[@]}"; do
        [ -z "$c" ] && continue
        for v in "${order[@]}"; do
            if (($(date +%s) - start >= limit)); then
                echo "skipped (past ${limit} s): round $round, $v, $c" >> "$log"
                continue
            fi
            rm -f /tmp/fenns-ab-passes.csv
            # shellcheck disable=SC2086 # a case's and BENCH's words are separate options
            timeout 300 "$dir/$v/fenns" bench $c ${BENCH:-} --method "$method" --no-host "${reps[@]}" \
                --passes-csv /tmp/fenns-ab-passes.csv > /tmp/fenns-ab-row.csv 2>> "$log"
            rc=$?
            [ -s "$runs" ] || head -n 1 /tmp/fenns-ab-row.csv | sed 's/^/round,variant,case,/' > "$runs"
            tail -n +2 /tmp/fenns-ab-row.csv | sed "s|^|$round,$v,$c,|" >> "$runs"
            if [ -e /tmp/fenns-ab-passes.csv ]; then
                [ -s "$passes" ] || head -n 1 /tmp/fenns-ab-passes.csv | sed 's/^/round,variant,case,/' > "$passes"
                tail -n +2 /tmp/fenns-ab-passes.csv | sed "s|^|$round,$v,$c,|" >> "$passes"
            fi
            echo "round $round $v $c: rc=$rc t=$(($(date +%s) - start))" >> "$log"
        done
    done
done
tail -n 3 "$log"
