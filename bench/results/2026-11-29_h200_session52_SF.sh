#!/bin/bash
# Session 52 run SF: STORE_DISPATCH (the search's dispatch fields written by one macro in the search work list and window_items) against 142905d: builds and the 2^26 sorted-order fill.
for f in .gl/*.deb; do dpkg -x $f /; done; ldconfig
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
tar xJf exp/SF.tar.xz -C /tmp; E=/tmp/SF
mkdir -p $OUT/r; : > $OUT/r/runs.csv; : > $OUT/r/passes.csv
run() { local round=$1 v=$2; shift 2
  timeout 200 $E/$v/fenns bench "$@" --method fenns --no-host --passes-csv /tmp/p.csv 2>>$OUT/r/log.txt | tail -1 | sed "s/^/$round,$v,$*,/" >> $OUT/r/runs.csv
  sed "1d;s/^/$round,$v,$*,/" /tmp/p.csv >> $OUT/r/passes.csv; }
for round in 1 2; do
  for v in base new; do run $round $v --scenario sph50 --n 4194304; done
  for v in base new; do run $round $v --scenario sph50 --n 1048576; done
done
for v in base new; do run 1 $v --scenario sph50 --n 67108864 --sorted-order --reps 3; done
