#!/bin/bash
# Session 54 run XA: the counts search of fixed reach walks each plane's rows longest first (new: counts only, carrying each row's start; new2: counts and list fill, keys holding the row's cells), against 8bc427a.
for f in .gl/*.deb; do dpkg -x $f /; done; ldconfig
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
tar xJf exp/XA.tar.xz -C /tmp; E=/tmp/XA
mkdir -p $OUT/r
S=$(date +%s)
nvidia-smi --query-gpu=name,driver_version --format=csv > $OUT/r/gpu.txt 2>&1
for v in base new new2; do $E/$v/fenns profile --n 4194304 --pipelines > $OUT/r/profile_$v.txt 2>&1; done
t() { local env="$1"; shift; echo "== $env $*"; env FENNS_VALIDATION=1 $env timeout 200 $E/new2/"$@" 2>&1 | tail -3; echo "rc=${PIPESTATUS[0]} t=$(( $(date +%s) - S ))"; }
{
t "" test_search --method fenns --quick
t "" test_point_sets
t "" test_search --method fenns --huge 12000000
} > $OUT/r/tests.txt 2>&1
: > $OUT/r/runs.csv; : > $OUT/r/passes.csv
run() { local round=$1 v=$2; shift 2
  timeout 200 $E/$v/fenns bench "$@" --method fenns --no-host --passes-csv /tmp/p.csv 2>>$OUT/r/log.txt | tail -1 | sed "s/^/$round,$v,$*,/" >> $OUT/r/runs.csv
  sed "1d;s/^/$round,$v,$*,/" /tmp/p.csv >> $OUT/r/passes.csv; echo "$round $v $* t=$(( $(date +%s) - S ))" >> $OUT/r/log.txt; }
for round in 1 2; do
  if [ $round = 1 ]; then V="base new new2"; else V="new2 new base"; fi
  for c in "--scenario sph50 --n 4194304" "--scenario sph50 --n 1048576" "--scenario sph50 --n 16777216" \
           "--scenario sph50 --n 4194304 --frame-order" "--scenario s1 --n 4194304 --radius 1" \
           "--scenario s1 --n 4194304 --radius 0.2" "--scenario s3 --n 4194304 --radius 0.3" \
           "--scenario dam --n 4194304" "--scenario cluster --n 4194304"; do
    for v in $V; do run $round $v $c; done
  done
done
tar czf $OUT/res.tgz -C $OUT r
