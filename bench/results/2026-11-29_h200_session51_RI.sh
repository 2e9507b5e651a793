#!/bin/bash
# Session 51 run RI: the final tree's GPU tests with validation.
for f in .gl/*.deb; do dpkg -x $f /; done; ldconfig
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
tar xJf exp/RI.tar.xz -C /tmp; E=/tmp/RI
mkdir -p $OUT/r
t() { local env="$1"; shift; echo "== $env $*"; env FENNS_VALIDATION=1 $env timeout 300 $E/"$@" 2>&1 | tail -3; echo "rc=${PIPESTATUS[0]}"; }
{
t "" test_search --method fenns --huge 20000000 --sorted
t "" test_search --method counting --huge 20000000 --sorted
t "FENNS_LIST_WINDOW_LOG2=28" test_search --method fenns --huge 12000000
t "FENNS_LIST_WINDOW_LOG2=28 FENNS_LIST_WINDOWED=0" test_search --method counting --huge 12000000
t "FENNS_LIST_WINDOW_LOG2=12" test_search --method fenns --quick
t "FENNS_LIST_WINDOW_LOG2=12 FENNS_LIST_WINDOWED=0" test_search --method fenns --quick
t "FENNS_LIST_WINDOW_LOG2=8" test_point_sets
t "" test_search --method fenns --huge
t "" test_search --method counting --huge
} > $OUT/r/tests.txt 2>&1
