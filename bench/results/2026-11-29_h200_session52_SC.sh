#!/bin/bash
# Session 52 run SC: original-order windows under SB's new (the base load behind a sorted-order test), v3 (window_items for every fenns windowed fill, the base added always) and 47d4cd9 (base).
for f in .gl/*.deb; do dpkg -x $f /; done; ldconfig
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
tar xJf exp/SC.tar.xz -C /tmp; E=/tmp/SC
mkdir -p $OUT/r
: > $OUT/r/runs.csv; : > $OUT/r/passes.csv
run() { local round=$1 v=$2; shift 2
  timeout 200 $E/$v/fenns bench "$@" --method fenns --no-host --passes-csv /tmp/p.csv 2>>$OUT/r/log.txt | tail -1 | sed "s/^/$round,$v,$*,/" >> $OUT/r/runs.csv
  sed "1d;s/^/$round,$v,$*,/" /tmp/p.csv >> $OUT/r/passes.csv; }
for round in 1 2; do
  for v in base new v3; do run $round $v --scenario sph50 --n 67108864 --frame-order --reps 3; done
  for v in base new v3; do run $round $v --scenario sph50 --n 67108864 --reps 3; done
done
for v in new v3; do run 1 $v --scenario sph50 --n 67108864 --sorted-order --reps 3; done
tar czf $OUT/res.tgz -C $OUT r
