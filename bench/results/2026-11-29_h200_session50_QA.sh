#!/bin/bash
# Session 50 run QA: lists in two chunks on the narrow searches (two) against ea0d452 (base);
# one binding of the whole range (one: does the driver lose entries past 2 GiB?); 256 MiB chunks at 4M (c28: the chunked fill's cost).
for f in .gl/*.deb; do dpkg -x $f /; done; ldconfig
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
tar xJf exp/QA.tar.xz -C /tmp; E=/tmp/QA
mkdir -p $OUT/r
( for t in "two/test_search --method fenns --huge 12000000" "one/test_search --method fenns --huge 12000000" "two/test_search --method counting --huge 12000000" "two/test_search --method fenns-paper --huge 12000000" "two/test_search --method fenns --quick" "two/test_kernel --quick" two/test_point_sets two/test_api two/test_host_searcher; do
    echo "== $t"; FENNS_VALIDATION=1 timeout 200 $E/$t 2>&1 | tail -3; echo "rc=${PIPESTATUS[0]}"; done ) > $OUT/r/tests.txt 2>&1
: > $OUT/r/runs.csv; : > $OUT/r/passes.csv
run() { # round variant args...
  local round=$1 v=$2; shift 2
  timeout 120 $E/$v/fenns bench "$@" --method fenns --no-host --passes-csv /tmp/p.csv 2>>$OUT/r/log.txt | tail -1 | sed "s/^/$round,$v,/" >> $OUT/r/runs.csv
  sed "1d;s/^/$round,$v,/" /tmp/p.csv >> $OUT/r/passes.csv
}
for round in 1 2 3; do
  for c in "sph50 1048576" "sph50 4194304" "sph50 16777216" "sph50 8388608" "dam 4194304" "s1 4194304"; do
    set -- $c
    for v in base two; do run $round $v --scenario $1 --n $2; done
  done
  for v in base two one; do run $round $v --scenario sph50 --n 16777216 --frame-order; done
  run $round one --scenario sph50 --n 16777216
  run $round c28 --scenario sph50 --n 4194304
done
tar czf $OUT/res.tgz -C $OUT r
