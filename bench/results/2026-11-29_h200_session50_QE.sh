#!/bin/bash
# Session 50 run QE: where the counts search's time goes (d29e354's shaders, bench checks off):
# a0 as is, a1 without the walk, a2 rows without candidates (each row's length counted), a3 without the count stores.
for f in .gl/*.deb; do dpkg -x $f /; done; ldconfig
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
tar xJf exp/QE.tar.xz -C /tmp; E=/tmp/QE
mkdir -p $OUT/r; : > $OUT/r/runs.csv; : > $OUT/r/passes.csv
run() { local round=$1 v=$2; shift 2
  timeout 120 $E/$v/fenns bench "$@" --method fenns --no-host --passes-csv /tmp/p.csv 2>>$OUT/r/log.txt | tail -1 | sed "s/^/$round,$v,/" >> $OUT/r/runs.csv
  sed "1d;s/^/$round,$v,/" /tmp/p.csv >> $OUT/r/passes.csv; }
for round in 1 2; do
  for c in "sph50 4194304" "sph50 1048576" "dam 4194304" "cluster 4194304" "s1 4194304 1" "s1 4194304 0.2"; do
    set -- $c; for v in a0 a1 a2 a3; do run $round $v --scenario $1 --n $2 ${3:+--radius $3}; done
  done
done
tar czf $OUT/res.tgz -C $OUT r
