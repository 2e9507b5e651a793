#!/usr/bin/env bash
# Issue 10, item 2 (octant inside FENNS) on the H100: fenns' search with its
# query stencil trimmed to the sphere's chords (build-gpu, the default) against
# the octant choice made per axis, every cell of the sphere's bounding box
# (build-gpu-box: cmake -B build-gpu-box -DCMAKE_BUILD_TYPE=Release
# -DFENNS_SHADER_DEFINES=-DFENNS_TRIM_BOX). Twice each, interleaved; rows of
# `fenns bench` prefixed with the build and the round, in $OUT/trim.csv, and
# the search passes in $OUT/trim_passes.csv. Run from the repo root, $OUT set.
for f in .gl/*.deb; do dpkg -x "$f" /; done; ldconfig
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
./build-gpu/bin/fenns bench --scenario sph50 --n 1048576 --method fenns --no-host > /dev/null 2>&1 # warm-up
for round in 1 2; do
    for b in build-gpu build-gpu-box; do
        for c in "sph50 --n 1048576" "sph50 --n 4194304" "s1 --n 4194304 --radius 1" "s3 --n 4194304 --radius 0.3" \
                 "dam --n 4194304" "cluster --n 4194304"; do
            # shellcheck disable=SC2086 # the case's words are separate options
            ./$b/bin/fenns bench --scenario $c --method fenns --no-host --passes-csv /tmp/p.csv 2> /dev/null |
                tail -n 1 | sed "s|^|$b,$round,|" >> "$OUT/trim.csv"
            grep ",counts,search" /tmp/p.csv | sed "s|^|$b,$round,|" >> "$OUT/trim_passes.csv"
        done
    done
done
cut -d, -f1-11 "$OUT/trim.csv"
