#!/bin/bash
# Session 51 run RC: what a window costs (f2ea820): sph50 2^26 sorted order with windows of 2^30 (default), 2^29, 2^28 entries.
for f in .gl/*.deb; do dpkg -x $f /; done; ldconfig
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
tar xJf exp/RA.tar.xz -C /tmp; E=/tmp/RA
mkdir -p $OUT/r
: > $OUT/r/runs.csv; : > $OUT/r/passes.csv
run() { local round=$1 v=$2; shift 2
  env $v timeout 200 $E/new/fenns bench "$@" --method fenns --no-host --passes-csv /tmp/p.csv 2>>$OUT/r/log.txt | tail -1 | sed "s/^/$round,$v,$*,/" >> $OUT/r/runs.csv
  sed "1d;s/^/$round,$v,$*,/" /tmp/p.csv >> $OUT/r/passes.csv; }
for round in 1 2; do
  for v in FENNS_LIST_WINDOW_LOG2=30 FENNS_LIST_WINDOW_LOG2=29 FENNS_LIST_WINDOW_LOG2=28 FENNS_LIST_WINDOW_LOG2=27; do
    run $round $v --scenario sph50 --n 67108864 --sorted-order --reps 3
  done
done
run 1 FENNS_LIST_WINDOW_LOG2=29 --scenario sph50 --n 67108864 --reps 3
tar czf $OUT/res.tgz -C $OUT r
