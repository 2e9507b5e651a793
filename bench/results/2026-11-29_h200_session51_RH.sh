#!/bin/bash
# Session 51 run RH: a workgroup with no query of the window skips its build and walk as an unsearched one (new4) rather than returning (new3).
for f in .gl/*.deb; do dpkg -x $f /; done; ldconfig
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
tar xJf exp/RH.tar.xz -C /tmp
mkdir -p $OUT/r
: > $OUT/r/runs.csv; : > $OUT/r/passes.csv
run() { local round=$1 v=$2; shift 2
  local bin=/tmp/RH/new4/fenns; [ $v = new3 ] && bin=/tmp/RE/new3/fenns
  timeout 200 $bin bench "$@" --method fenns --no-host --passes-csv /tmp/p.csv 2>>$OUT/r/log.txt | tail -1 | sed "s/^/$round,$v,$*,/" >> $OUT/r/runs.csv
  sed "1d;s/^/$round,$v,$*,/" /tmp/p.csv >> $OUT/r/passes.csv; }
for round in 1 2; do
  for v in new3 new4; do
    run $round $v --scenario sph50 --n 67108864 --reps 3 --frame-order
    run $round $v --scenario sph50 --n 67108864 --reps 3
  done
done
tar czf $OUT/res.tgz -C $OUT r
