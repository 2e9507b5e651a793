#!/bin/bash
# Session 51 run RF: the v30 table, 4bf8654's fenns (build-gpu/bin/fenns copied to exp/RF), carry [".gl", "exp/RF"].
B=exp/RF bash bench/h100_bench.sh t
