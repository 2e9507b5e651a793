#!/bin/bash
# Session 51 run RB: the windowed one-store fill (f2ea820, new) against 9c33e1c (base): bench.
for f in .gl/*.deb; do dpkg -x $f /; done; ldconfig
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
tar xJf exp/RA.tar.xz -C /tmp; E=/tmp/RA
mkdir -p $OUT/r
$E/new/fenns profile --scenario sph50 --n 4194304 --pipelines 2>&1 | grep -E '^search' > $OUT/r/stats.txt
: > $OUT/r/runs.csv; : > $OUT/r/passes.csv
run() { local round=$1 v=$2; shift 2
  timeout 200 $E/$v/fenns bench "$@" --method fenns --no-host --passes-csv /tmp/p.csv 2>>$OUT/r/log.txt | tail -1 | sed "s/^/$round,$v,$*,/" >> $OUT/r/runs.csv
  sed "1d;s/^/$round,$v,$*,/" /tmp/p.csv >> $OUT/r/passes.csv; }
for round in 1 2; do
  for v in base new; do
    run $round $v --scenario sph50 --n 67108864 --sorted-order --reps 3
    run $round $v --scenario sph50 --n 67108864 --reps 3
  done
done
for round in 1 2 3; do
  for c in "sph50 4194304" "sph50 16777216" "dam 4194304" "s1 4194304 0.2"; do
    set -- $c; for v in base new; do run $round $v --scenario $1 --n $2 ${3:+--radius $3}; done
  done
  for v in base new; do run $round $v --scenario sph50 --n 4194304 --sorted-order; done
done
tar czf $OUT/res.tgz -C $OUT r
