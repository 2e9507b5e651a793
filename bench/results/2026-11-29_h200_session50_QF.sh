#!/bin/bash
# Session 50 run QF: each query's state taken before its workgroup's local grid is built (new) against 94bc201 (base):
# tests with validation, pipeline statistics, bench, fenns-sph with its kernels' statistics.
for f in .gl/*.deb; do dpkg -x $f /; done; ldconfig
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
tar xJf exp/QF.tar.xz -C /tmp; E=/tmp/QF
mkdir -p $OUT/r
( for t in "test_kernel --quick" "test_search --method fenns --quick" test_point_sets test_api test_host_searcher test_gpu_count "test_search --method fenns --extremes"; do
    echo "== $t"; FENNS_VALIDATION=1 timeout 200 $E/new/$t 2>&1 | tail -2; echo "rc=${PIPESTATUS[0]}"; done ) > $OUT/r/tests.txt 2>&1
for v in base new; do $E/$v/fenns profile --scenario sph50 --n 4194304 --pipelines 2>&1 | grep -E '^search' | sed "s/^/$v /" >> $OUT/r/stats.txt; done
: > $OUT/r/runs.csv; : > $OUT/r/passes.csv
run() { local round=$1 v=$2; shift 2
  timeout 120 $E/$v/fenns bench "$@" --method fenns --no-host --passes-csv /tmp/p.csv 2>>$OUT/r/log.txt | tail -1 | sed "s/^/$round,$v,/" >> $OUT/r/runs.csv
  sed "1d;s/^/$round,$v,/" /tmp/p.csv >> $OUT/r/passes.csv; }
for round in 1 2 3; do
  for c in "sph50 16384" "sph50 131072" "sph50 1048576" "sph50 4194304" "sph50 16777216" "dam 4194304" "cluster 4194304" "s1 4194304 1" "s1 4194304 0.2" "s3 4194304 0.3"; do
    set -- $c; for v in base new; do run $round $v --scenario $1 --n $2 ${3:+--radius $3}; done
  done
  for v in base new; do
    echo "== $round $v 1M" >> $OUT/r/sph.txt
    timeout 120 $E/$v/fenns-sph --particles 1000000 --steps 300 --frames 0 2>&1 | grep -v "^STAT" | tail -1 >> $OUT/r/sph.txt
  done
done
for v in base new; do timeout 120 $E/$v/fenns-sph --particles 1000000 --steps 2 --frames 0 2>&1 | grep "^STAT" | grep -E "Register|Shared" | sed "s/^/$v /" >> $OUT/r/stats.txt; done
tar czf $OUT/res.tgz -C $OUT r
