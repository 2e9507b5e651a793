#!/bin/bash
# Session 51 run RG (probe): lists within one binding in original order filled in windows (FENNS_LIST_WINDOW_LOG2), with the gathered queries (new3).
for f in .gl/*.deb; do dpkg -x $f /; done; ldconfig
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
tar xJf exp/RE.tar.xz -C /tmp
mkdir -p $OUT/r
: > $OUT/r/runs.csv; : > $OUT/r/passes.csv
run() { local round=$1 v=$2; shift 2
  env $v timeout 200 /tmp/RE/new3/fenns bench "$@" --method fenns --no-host --passes-csv /tmp/p.csv 2>>$OUT/r/log.txt | tail -1 | sed "s/^/$round,$v,$*,/" >> $OUT/r/runs.csv
  sed "1d;s/^/$round,$v,$*,/" /tmp/p.csv >> $OUT/r/passes.csv; }
for round in 1 2; do
  for v in FENNS_LIST_WINDOW_LOG2=30 FENNS_LIST_WINDOW_LOG2=29 FENNS_LIST_WINDOW_LOG2=28; do run $round $v --scenario sph50 --n 16777216; done
  for v in FENNS_LIST_WINDOW_LOG2=30 FENNS_LIST_WINDOW_LOG2=27; do run $round $v --scenario sph50 --n 4194304; done
  for v in FENNS_LIST_WINDOW_LOG2=30 FENNS_LIST_WINDOW_LOG2=29; do run $round $v --scenario sph50 --n 16777216 --frame-order; done
done
tar czf $OUT/res.tgz -C $OUT r
