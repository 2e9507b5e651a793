#!/bin/bash
# Session 50 run QG: the v29 table (bench/h100_bench.sh t) with 6bfcb4f's binaries; then the build's form at 4M and 8M.
tar xJf exp/QG.tar.xz -C /tmp
B=/tmp/QG bash bench/h100_bench.sh t > /dev/null 2>&1
for bc in 0 1; do for n in 4194304 8388608; do
  FENNS_BUILD_BY_CELL=$bc /tmp/QG/fenns bench --scenario sph50 --n $n --method fenns --no-host 2>/dev/null | tail -1 | sed "s/^/by_cell=$bc,/" >> $OUT/build_form.csv
  FENNS_BUILD_BY_CELL=$bc /tmp/QG/fenns bench --scenario sph50 --n $n --method fenns --no-host --frame-order 2>/dev/null | tail -1 | sed "s/^/by_cell=$bc,/" >> $OUT/build_form.csv
done; done
cut -d, -f1-12 $OUT/bench_t.csv; cat $OUT/build_form.csv | cut -d, -f1-12
