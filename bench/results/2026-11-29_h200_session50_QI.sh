#!/bin/bash
# Session 50 run QI: 3 GiB of lists in windows of 2^28 entries (the chunked search over lists one binding holds):
# 94bc201 (old: every chunk binding bound whole) against the fix (new: the first covers them all, the others stay chunks).
for f in .gl/*.deb; do dpkg -x $f /; done; ldconfig
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
tar xJf exp/QI.tar.xz -C /tmp; E=/tmp/QI
for t in "old/test_search --method fenns --huge 12000000" "new/test_search --method fenns --huge 12000000" "new/test_search --method counting --huge 12000000"; do
  echo "== windows 2^28: $t"; FENNS_LIST_WINDOW_LOG2=28 FENNS_VALIDATION=1 timeout 200 $E/$t 2>&1 | tail -3; echo "rc=${PIPESTATUS[0]}"; done
for t in "new/test_search --method fenns --huge 12000000" "new/test_search --method fenns-paper --huge 12000000" "new/test_search --method fenns --quick" new/test_api new/test_host_searcher; do
  echo "== $t"; FENNS_VALIDATION=1 timeout 200 $E/$t 2>&1 | tail -2; echo "rc=${PIPESTATUS[0]}"; done
