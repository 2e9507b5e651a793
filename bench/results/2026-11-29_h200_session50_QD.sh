#!/bin/bash
# Session 50 run QD: test_kernel --quick on the GPU, base (94bc201) and new, three times each, every failure line.
for f in .gl/*.deb; do dpkg -x $f /; done; ldconfig
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
tar xJf exp/QD.tar.xz -C /tmp; E=/tmp/QD
for i in 1 2 3; do for v in base new; do echo "== $i $v"; FENNS_VALIDATION=1 timeout 200 $E/$v/test_kernel --quick 2>&1 | grep -v "^ok" | grep -iE "fail|error|wrong|differ|expected" | head -8; done; done
