#!/bin/bash
# Session 53 run TB: round 2 (new first) of TA and 4M checks; original-order windows launch only the run of items spanning their outputs' sorted positions (924656e) against 05781af; tests with validation.
for f in .gl/*.deb; do dpkg -x $f /; done; ldconfig
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
tar xJf exp/TA.tar.xz -C /tmp; E=/tmp/TA
mkdir -p $OUT/r
S=$(date +%s)
t() { local env="$1"; shift; echo "== $env $*"; env FENNS_VALIDATION=1 $env timeout 300 $E/new/"$@" 2>&1 | tail -3; echo "rc=${PIPESTATUS[0]} t=$(( $(date +%s) - S ))"; }
{
t "" test_search --method fenns --huge
} > $OUT/r/tests.txt 2>&1
: > $OUT/r/runs.csv; : > $OUT/r/passes.csv
run() { local round=$1 v=$2; shift 2
  timeout 200 $E/$v/fenns bench "$@" --method fenns --no-host --passes-csv /tmp/p.csv 2>>$OUT/r/log.txt | tail -1 | sed "s/^/$round,$v,$*,/" >> $OUT/r/runs.csv
  sed "1d;s/^/$round,$v,$*,/" /tmp/p.csv >> $OUT/r/passes.csv; echo "$round $v $* t=$(( $(date +%s) - S ))" >> $OUT/r/log.txt; }
for round in 2; do
  for v in new base; do run $round $v --scenario sph50 --n 67108864 --frame-order --reps 3; done
  for v in new base; do run $round $v --scenario sph50 --n 67108864 --reps 3; done
  for v in new base; do run $round $v --scenario sph50 --n 67108864 --sorted-order --reps 3; done
done
for v in new base; do run 2 $v --scenario sph50 --n 4194304; run 2 $v --scenario sph50 --n 4194304 --frame-order; done
tar czf $OUT/res.tgz -C $OUT r
