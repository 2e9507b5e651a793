#!/bin/bash
# Session 53 run TG: the gather of a windowed fill in original order tests the window's outputs (window_items.comp's) instead of loading each list's start, against 651b50a; GPU tests with validation.
for f in .gl/*.deb; do dpkg -x $f /; done; ldconfig
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
tar xJf exp/TG.tar.xz -C /tmp; E=/tmp/TG
mkdir -p $OUT/r
S=$(date +%s)
t() { local env="$1"; shift; echo "== $env $*"; env FENNS_VALIDATION=1 $env timeout 300 $E/new/"$@" 2>&1 | tail -3; echo "rc=${PIPESTATUS[0]} t=$(( $(date +%s) - S ))"; }
{
t "FENNS_LIST_WINDOW_LOG2=28" test_search --method fenns --huge 12000000

t "FENNS_LIST_WINDOW_LOG2=12" test_search --method fenns --quick

t "FENNS_LIST_WINDOW_LOG2=8" test_point_sets
t "" test_search --method fenns --huge 12000000
t "FENNS_LIST_WINDOW_LOG2=12" test_passes

t "" test_search --method fenns --huge
} > $OUT/r/tests.txt 2>&1
: > $OUT/r/runs.csv; : > $OUT/r/passes.csv
run() { local round=$1 v=$2; shift 2
  timeout 200 $E/$v/fenns bench "$@" --method fenns --no-host --passes-csv /tmp/p.csv 2>>$OUT/r/log.txt | tail -1 | sed "s/^/$round,$v,$*,/" >> $OUT/r/runs.csv
  sed "1d;s/^/$round,$v,$*,/" /tmp/p.csv >> $OUT/r/passes.csv; echo "$round $v $* t=$(( $(date +%s) - S ))" >> $OUT/r/log.txt; }
for round in 1 2; do
  if [ $round = 1 ]; then V="base new"; else V="new base"; fi
  for v in $V; do run $round $v --scenario sph50 --n 67108864 --frame-order --reps 3; done
  for v in $V; do run $round $v --scenario sph50 --n 67108864 --reps 3; done
done
tar czf $OUT/res.tgz -C $OUT r
