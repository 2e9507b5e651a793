#!/usr/bin/env bash
# The whole H100 session sweep (run from the repo root on the device machine, $OUT set):
# bench/gpu_stats.sh, a 1M cluster with and without a far outlier, and the validated
# search / extremes / device-failure tests at the GPU's own subgroup size.
for f in .gl/*.deb; do dpkg -x $f /; done; ldconfig; export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
B=build-gpu/bin
bash bench/gpu_stats.sh $B $OUT/stats > $OUT/gpu_stats.log 2>&1
# 1M cluster in [0,100)^3 plus one particle at 1e5 (and the plain cluster)
$B/make_points uniform 1048576 100 /tmp/c.f32; cp /tmp/c.f32 /tmp/o.f32
printf '\x00\x50\xc3\x47\x00\x50\xc3\x47\x00\x50\xc3\x47' | dd of=/tmp/o.f32 conv=notrunc 2>/dev/null
for m in fenns fenns-paper; do for s in c o; do for run in 1 2 3 4 5 6; do
  echo "== $s $m $run" >> $OUT/outlier.txt; $B/fenns neighbors --input /tmp/$s.f32 --radius 1 --method $m --stats >/dev/null 2>> $OUT/outlier.txt; done; done; done
ls /usr/share/vulkan/explicit_layer.d/ > $OUT/layers.txt
for m in fenns fenns-paper; do
  timeout 200 $B/test_search --method $m > $OUT/search_$m.txt 2>&1; echo "rc=$?" >> $OUT/search_$m.txt
  timeout 120 $B/test_search --method $m --extremes > $OUT/extremes_$m.txt 2>&1; echo "rc=$?" >> $OUT/extremes_$m.txt
done
timeout 60 $B/test_device_failure > $OUT/device_failure.txt 2>&1; echo "rc=$?" >> $OUT/device_failure.txt
tail -3 $OUT/search_*.txt $OUT/extremes_*.txt $OUT/device_failure.txt $OUT/stats/test_cli.txt
