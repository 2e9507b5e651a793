#!/bin/bash
# Session 53 run TI: 14a2cc0 (store_run_of half-open) against 8e9de70's binary: window tests with validation, 2^26 frame-order fill.
for f in .gl/*.deb; do dpkg -x $f /; done; ldconfig
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
tar xJf exp/TI.tar.xz -C /tmp; E=/tmp/TI
mkdir -p $OUT/r; : > $OUT/r/passes.csv
t() { local env="$1"; shift; echo "== $env $*"; env FENNS_VALIDATION=1 $env timeout 120 $E/new/"$@" 2>&1 | tail -2; echo "rc=${PIPESTATUS[0]}"; }
{
t "FENNS_LIST_WINDOW_LOG2=28" test_search --method fenns --huge 12000000
t "FENNS_LIST_WINDOW_LOG2=24" test_search --method fenns --huge 12000000 --sorted
t "FENNS_LIST_WINDOW_LOG2=12" test_search --method fenns --quick
} > $OUT/r/tests.txt 2>&1
for v in base new; do timeout 120 $E/$v/fenns bench --scenario sph50 --n 67108864 --frame-order --reps 3 --method fenns --no-host --passes-csv /tmp/p.csv > /dev/null 2>&1; sed "1d;s/^/$v,/" /tmp/p.csv >> $OUT/r/passes.csv; done
