#!/bin/bash
# Session 53 run TH: TG's binaries on sorted-order lists (whose fill never gathers) and 4M.
for f in .gl/*.deb; do dpkg -x $f /; done; ldconfig
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
tar xJf exp/TG.tar.xz -C /tmp; E=/tmp/TG
mkdir -p $OUT/r; : > $OUT/r/runs.csv; : > $OUT/r/passes.csv
run() { local round=$1 v=$2; shift 2
  timeout 200 $E/$v/fenns bench "$@" --method fenns --no-host --passes-csv /tmp/p.csv 2>>$OUT/r/log.txt | tail -1 | sed "s/^/$round,$v,$*,/" >> $OUT/r/runs.csv
  sed "1d;s/^/$round,$v,$*,/" /tmp/p.csv >> $OUT/r/passes.csv; }
for v in base new; do run 1 $v --scenario sph50 --n 67108864 --sorted-order --reps 3; done
for v in new base; do run 1 $v --scenario sph50 --n 4194304; done
tar czf $OUT/res.tgz -C $OUT r
