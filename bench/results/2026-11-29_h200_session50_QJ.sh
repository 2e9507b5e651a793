#!/bin/bash
# Session 50 run QJ: what the chunked fill costs in sorted order (2^26's lists in the table): 4M through 256 MiB
# chunks (c28) against one binding (base, bc650fe), lists in sorted and in original order, two rounds.
for f in .gl/*.deb; do dpkg -x $f /; done; ldconfig
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
tar xJf exp/QJ.tar.xz -C /tmp; E=/tmp/QJ
mkdir -p $OUT/r; : > $OUT/r/runs.csv; : > $OUT/r/passes.csv
run() { local round=$1 v=$2; shift 2
  timeout 120 $E/$v/fenns bench "$@" --method fenns --no-host --passes-csv /tmp/p.csv 2>>$OUT/r/log.txt | tail -1 | sed "s/^/$round,$v,/" >> $OUT/r/runs.csv
  sed "1d;s/^/$round,$v,/" /tmp/p.csv >> $OUT/r/passes.csv; }
for round in 1 2; do for v in base c28; do
  run $round $v --scenario sph50 --n 4194304 --sorted-order; run $round $v --scenario sph50 --n 4194304
done; done
grep "fill" $OUT/r/passes.csv | cut -d, -f1-9
