#!/usr/bin/env bash
# The whole H100 session sweep (run from the repo root on the device machine, $OUT set):
# bench/gpu_stats.sh, a 1M cluster with and without a far outlier, and the validated
# search / extremes / huge (2^26 particles, >2^32 entries) / device-failure tests at the
# GPU's own subgroup size. Every result lands flat in $OUT.
for f in .gl/*.deb; do dpkg -x $f /; done; ldconfig; export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
B=build-gpu/bin
bash bench/gpu_stats.sh $B /tmp/stats > $OUT/gpu_stats.log 2>&1
cp /tmp/stats/stats.csv $OUT/stats.csv; cp /tmp/stats/test_cli.txt $OUT/test_cli.txt; cp /tmp/stats/info.txt $OUT/info.txt
# 1M cluster in [0,100)^3 plus one particle at 1e5 (and the plain cluster)
$B/make_points uniform 1048576 100 /tmp/c.f32; cp /tmp/c.f32 /tmp/o.f32
printf '\x00\x50\xc3\x47\x00\x50\xc3\x47\x00\x50\xc3\x47' | dd of=/tmp/o.f32 conv=notrunc 2>/dev/null
for m in fenns fenns-paper; do for s in c o; do for run in 1 2 3 4 5 6; do
  echo "== $s $m $run" >> $OUT/outlier.txt; $B/fenns neighbors --input /tmp/$s.f32 --radius 1 --method $m --stats >/dev/null 2>> $OUT/outlier.txt; done; done; done
export FENNS_VALIDATION=1
for m in fenns fenns-paper; do
  timeout 200 $B/test_search --method $m > $OUT/search_$m.txt 2>&1; echo "rc=$?" >> $OUT/search_$m.txt
  timeout 120 $B/test_search --method $m --extremes > $OUT/extremes_$m.txt 2>&1; echo "rc=$?" >> $OUT/extremes_$m.txt
  timeout 240 $B/test_search --method $m --huge > $OUT/huge_$m.txt 2>&1; echo "rc=$?" >> $OUT/huge_$m.txt
done
timeout 60 $B/test_scan64 > $OUT/scan64.txt 2>&1; echo "rc=$?" >> $OUT/scan64.txt
timeout 60 $B/test_device_failure > $OUT/device_failure.txt 2>&1; echo "rc=$?" >> $OUT/device_failure.txt
for f in $OUT/*.txt; do echo "## $f"; tail -n 3 $f; done
