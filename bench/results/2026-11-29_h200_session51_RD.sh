#!/bin/bash
# Session 51 run RD: original-order windows gather their queries (new2) against the windowed fill (new, f2ea820) and the chunked one (base, 9c33e1c).
for f in .gl/*.deb; do dpkg -x $f /; done; ldconfig
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
tar xJf exp/RD.tar.xz -C /tmp; E=/tmp/RD; B=/tmp/RA/base/fenns
mkdir -p $OUT/r
t() { local env="$1"; shift; echo "== $env $*"; env FENNS_VALIDATION=1 $env timeout 300 $E/new2/"$@" 2>&1 | tail -3; echo "rc=${PIPESTATUS[0]}"; }
{
t "FENNS_LIST_WINDOW_LOG2=28" test_search --method fenns --huge 12000000
t "FENNS_LIST_WINDOW_LOG2=28 FENNS_LIST_WINDOWED=0" test_search --method fenns --huge 12000000
t "FENNS_LIST_WINDOW_LOG2=12" test_search --method fenns --quick
t "" test_search --method fenns --huge
} > $OUT/r/tests.txt 2>&1
$E/new2/fenns profile --scenario sph50 --n 4194304 --pipelines 2>&1 | grep -E '^search' > $OUT/r/stats.txt
: > $OUT/r/runs.csv; : > $OUT/r/passes.csv
run() { local round=$1 v=$2; shift 2
  local bin=$E/new2/fenns; [ $v = new ] && bin=$E/new2/fenns_new1; [ $v = base ] && bin=$B
  timeout 200 $bin bench "$@" --method fenns --no-host --passes-csv /tmp/p.csv 2>>$OUT/r/log.txt | tail -1 | sed "s/^/$round,$v,$*,/" >> $OUT/r/runs.csv
  sed "1d;s/^/$round,$v,$*,/" /tmp/p.csv >> $OUT/r/passes.csv; }
for round in 1 2; do
  for v in base new new2; do run $round $v --scenario sph50 --n 67108864 --reps 3; done
  for v in new new2; do run $round $v --scenario sph50 --n 67108864 --sorted-order --reps 3; done
  for v in new new2; do run $round $v --scenario sph50 --n 4194304; done
done
tar czf $OUT/res.tgz -C $OUT r
