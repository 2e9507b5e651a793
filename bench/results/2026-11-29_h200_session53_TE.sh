#!/bin/bash
# Session 53 run TE: window size for lists in original order (FENNS_LIST_WINDOW_LOG2), sph50 2^26, the final tree (TD's new).
for f in .gl/*.deb; do dpkg -x $f /; done; ldconfig
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
tar xJf exp/TD.tar.xz -C /tmp; E=/tmp/TD
mkdir -p $OUT/r; : > $OUT/r/runs.csv; : > $OUT/r/passes.csv
S=$(date +%s)
run() { local round=$1 v=$2; shift 2
  env $v timeout 200 $E/new/fenns bench "$@" --method fenns --no-host --passes-csv /tmp/p.csv 2>>$OUT/r/log.txt | tail -1 | sed "s/^/$round,$v,$*,/" >> $OUT/r/runs.csv
  sed "1d;s/^/$round,$v,$*,/" /tmp/p.csv >> $OUT/r/passes.csv; echo "$round $v $* t=$(( $(date +%s) - S ))" >> $OUT/r/log.txt; }
for v in FENNS_LIST_WINDOW_LOG2=30 FENNS_LIST_WINDOW_LOG2=29 FENNS_LIST_WINDOW_LOG2=28 FENNS_LIST_WINDOW_LOG2=27; do run 1 $v --scenario sph50 --n 67108864 --reps 3; done
for v in FENNS_LIST_WINDOW_LOG2=30 FENNS_LIST_WINDOW_LOG2=29 FENNS_LIST_WINDOW_LOG2=28; do run 1 $v --scenario sph50 --n 67108864 --frame-order --reps 3; done
tar czf $OUT/res.tgz -C $OUT r
