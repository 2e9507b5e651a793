#!/bin/bash
# Session 50 run QB: the list fill's emission without the early return (f1), its second candidate by the loop's
# test (f2), against 94bc201 (base); the counts search without its walk (a1) and with rows but no candidates (a2).
for f in .gl/*.deb; do dpkg -x $f /; done; ldconfig
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
tar xJf exp/QB.tar.xz -C /tmp; E=/tmp/QB
mkdir -p $OUT/r
( for t in "base/test_search --method fenns --huge 12000000" "base/test_search --method fenns-paper --huge 12000000" "base/test_search --method counting --huge 12000000" "base/test_search --method radix --huge 12000000" "base/test_search --method octant --huge 12000000" "f1/test_search --method fenns --quick" "f2/test_search --method fenns --quick"; do
    echo "== $t"; FENNS_VALIDATION=1 timeout 200 $E/$t 2>&1 | tail -2; echo "rc=${PIPESTATUS[0]}"; done ) > $OUT/r/tests.txt 2>&1
for v in base f1 f2; do $E/$v/fenns profile --scenario sph50 --n 4194304 --pipelines 2>&1 | grep -E '^search' | sed "s/^/$v /" >> $OUT/r/stats.txt; done
: > $OUT/r/runs.csv; : > $OUT/r/passes.csv
run() { local round=$1 v=$2; shift 2
  timeout 120 $E/$v/fenns bench "$@" --method fenns --no-host --passes-csv /tmp/p.csv 2>>$OUT/r/log.txt | tail -1 | sed "s/^/$round,$v,/" >> $OUT/r/runs.csv
  sed "1d;s/^/$round,$v,/" /tmp/p.csv >> $OUT/r/passes.csv; }
for round in 1 2 3; do
  for c in "sph50 4194304" "sph50 16777216" "dam 4194304" "s1 4194304" "cluster 4194304" "sph50 1048576"; do
    set -- $c; for v in base f1 f2; do run $round $v --scenario $1 --n $2; done
  done
  for c in "sph50 4194304" "s1 4194304" "s1 4194304 0.2"; do
    set -- $c; for v in a1 a2; do run $round $v --scenario $1 --n $2 ${3:+--radius $3}; done
  done
  run $round base --scenario s1 --n 4194304 --radius 0.2
done
tar czf $OUT/res.tgz -C $OUT r
