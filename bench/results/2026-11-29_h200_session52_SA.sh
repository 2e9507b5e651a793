#!/bin/bash
# Session 52 run SA: the windowed fill in rounds of 64 invocations (new) against 47d4cd9 (base); tests with validation.
for f in .gl/*.deb; do dpkg -x $f /; done; ldconfig
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
tar xJf exp/SA.tar.xz -C /tmp; E=/tmp/SA
mkdir -p $OUT/r
t() { local env="$1"; shift; echo "== $env $*"; env FENNS_VALIDATION=1 $env timeout 300 $E/new/"$@" 2>&1 | tail -3; echo "rc=${PIPESTATUS[0]}"; }
{
t "" test_search --method fenns --huge 20000000 --sorted
t "FENNS_LIST_WINDOW_LOG2=28" test_search --method fenns --huge 12000000
t "FENNS_LIST_WINDOW_LOG2=12" test_search --method fenns --quick
t "FENNS_LIST_WINDOW_LOG2=12" test_search --method counting --quick
t "FENNS_LIST_WINDOW_LOG2=8" test_point_sets
} > $OUT/r/tests.txt 2>&1
$E/new/fenns profile --scenario sph50 --n 4194304 --pipelines 2>&1 | grep -E '^search' > $OUT/r/stats.txt
: > $OUT/r/runs.csv; : > $OUT/r/passes.csv
run() { local round=$1 v=$2; shift 2
  local bin=$E/new/fenns env=""; [ $v = base ] && bin=$E/base/fenns; [ $v = r1 ] && env="FENNS_WINDOW_ROUNDS=1"; [ $v = r2 ] && env="FENNS_WINDOW_ROUNDS=2"
  env $env timeout 200 $bin bench "$@" --method fenns --no-host --passes-csv /tmp/p.csv 2>>$OUT/r/log.txt | tail -1 | sed "s/^/$round,$v,$*,/" >> $OUT/r/runs.csv
  sed "1d;s/^/$round,$v,$*,/" /tmp/p.csv >> $OUT/r/passes.csv; }
for round in 1 2; do
  for v in base new r1 r2; do run $round $v --scenario sph50 --n 67108864 --reps 3; done
  for v in base new; do run $round $v --scenario sph50 --n 67108864 --sorted-order --reps 3; done
  for v in base new; do run $round $v --scenario sph50 --n 67108864 --frame-order --reps 3; done
  for v in base new; do run $round $v --scenario sph50 --n 4194304; done
done
tar czf $OUT/res.tgz -C $OUT r
