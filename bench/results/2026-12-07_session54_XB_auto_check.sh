#!/bin/bash
# Session 54 run XB (NOT RUN: no device came in six tries): auto's pick against every method it picks from, on the sets its cost model decides between. Expects the binaries of the tree to check packed as exp/XA.tar.xz (XA/base/fenns); results in $OUT/r/runs.csv.
for f in .gl/*.deb; do dpkg -x $f /; done; ldconfig
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
tar xJf exp/XA.tar.xz -C /tmp; F=/tmp/XA/base/fenns
mkdir -p $OUT/r; S=$(date +%s)
$F bench --scenario s1 --n 524288 --method counting --no-host > /dev/null 2>&1  # clocks up
first=1
for c in "--scenario sph50 --n 65536" "--scenario sph50 --n 262144" "--scenario sph50 --n 1048576" "--scenario sph50 --n 4194304" \
         "--scenario s1 --n 65536 --radius 1" "--scenario s1 --n 524288 --radius 1" "--scenario s1 --n 524288 --radius 0.2" \
         "--scenario s1 --n 4194304 --radius 0.2" "--scenario s3 --n 524288 --radius 0.3" "--scenario s3 --n 4194304 --radius 0.3" \
         "--scenario sph50 --n 262144 --radius 0.5" "--scenario sph50 --n 1048576 --radius 0.3"; do
  for m in fenns counting octant radix auto; do
    timeout 120 $F bench $c --method $m --no-host --reps 7 2>>$OUT/r/log.txt > /tmp/o.csv
    if [ $first = 1 ]; then head -1 /tmp/o.csv | sed 's/^/args,/' > $OUT/r/runs.csv; first=0; fi
    tail -n +2 /tmp/o.csv | sed "s/^/$c,/" >> $OUT/r/runs.csv
  done
  echo "$c t=$(( $(date +%s) - S ))" >> $OUT/r/log.txt
done
