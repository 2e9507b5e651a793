#!/bin/bash
# Session 50 run QH: session 49's final binary (v28) against 6bfcb4f's (v29) on one machine, three rounds: the rows
# one binding for 2-4 GiB of lists moves (sph50 16M in random and frame order), and 4M as a control.
for f in .gl/*.deb; do dpkg -x $f /; done; ldconfig
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
tar xJf exp/QH.tar.xz -C /tmp; E=/tmp/QH
mkdir -p $OUT/r; : > $OUT/r/runs.csv; : > $OUT/r/passes.csv
run() { local round=$1 v=$2; shift 2
  timeout 120 $E/$v/fenns bench "$@" --method fenns --no-host --passes-csv /tmp/p.csv 2>>$OUT/r/log.txt | tail -1 | sed "s/^/$round,$v,/" >> $OUT/r/runs.csv
  sed "1d;s/^/$round,$v,/" /tmp/p.csv >> $OUT/r/passes.csv; }
for round in 1 2 3; do
  for v in v28 v29; do run $round $v --scenario sph50 --n 16777216; run $round $v --scenario sph50 --n 16777216 --frame-order; run $round $v --scenario sph50 --n 4194304; done
done
tar czf $OUT/res.tgz -C $OUT r
cut -d, -f1-13 $OUT/r/runs.csv
