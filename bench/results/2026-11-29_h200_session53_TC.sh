#!/bin/bash
# Session 53 run TC: the counts search 0.5% slower in TA/TB: base (05781af), new (924656e), new2 (counts_unsearched after COUNT_ONLY), new3 (new with first_list_window as before); 4M, three rounds, and each pass's registers.
for f in .gl/*.deb; do dpkg -x $f /; done; ldconfig
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
tar xJf exp/TC.tar.xz -C /tmp; E=/tmp/TC
mkdir -p $OUT/r; : > $OUT/r/runs.csv; : > $OUT/r/passes.csv
run() { local round=$1 v=$2; shift 2
  timeout 200 $E/$v/fenns bench "$@" --method fenns --no-host --passes-csv /tmp/p.csv 2>>$OUT/r/log.txt | tail -1 | sed "s/^/$round,$v,$*,/" >> $OUT/r/runs.csv
  sed "1d;s/^/$round,$v,$*,/" /tmp/p.csv >> $OUT/r/passes.csv; }
for v in base new new2 new3; do $E/$v/fenns profile --scenario sph50 --n 4194304 --pipelines > $OUT/r/pipelines_$v.txt 2>&1; done
for round in 1 2 3; do
  for v in base new new2 new3; do run $round $v --scenario sph50 --n 4194304; done
  for v in base new new2 new3; do run $round $v --scenario s1 --n 4194304 --radius 0.2; done
done
tar czf $OUT/res.tgz -C $OUT r
