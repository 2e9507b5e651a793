#!/bin/bash
# Session 51 run RA: the windowed one-store fill (f2ea820), GPU tests with validation.
for f in .gl/*.deb; do dpkg -x $f /; done; ldconfig
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
tar xJf exp/RA.tar.xz -C /tmp; E=/tmp/RA
mkdir -p $OUT/r
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv > $OUT/r/gpu.txt 2>&1
t() { local env="$1"; shift; echo "== $env $*"; s=$(date +%s.%N)
  env FENNS_VALIDATION=1 $env timeout 300 $E/new/"$@" 2>&1 | tail -4; echo "rc=${PIPESTATUS[0]} $(echo "$(date +%s.%N) - $s" | bc) s"; }
{
t "" test_search --method fenns --huge 20000000 --sorted
t "" test_search --method counting --huge 20000000 --sorted
t "FENNS_LIST_WINDOW_LOG2=24" test_search --method fenns --huge 2000000 --sorted
t "FENNS_LIST_WINDOW_LOG2=28" test_search --method fenns --huge 12000000
t "FENNS_LIST_WINDOW_LOG2=28 FENNS_LIST_WINDOWED=0" test_search --method fenns --huge 12000000
t "FENNS_LIST_WINDOW_LOG2=28" test_search --method counting --huge 12000000
t "" test_search --method fenns --quick
t "FENNS_LIST_WINDOW_LOG2=12" test_search --method fenns --quick
t "" test_point_sets
t "" test_search --method fenns --huge
} > $OUT/r/tests.txt 2>&1
tar czf $OUT/res.tgz -C $OUT r
