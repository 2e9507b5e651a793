#!/usr/bin/env bash
# Packs the `fenns` CLI of several trees for an A/B run on the device machine
# (bench/ab.sh), here on the build machine, where glslang and the static
# libraries are: every LABEL=REV builds REV (a commit, or "." for the working
# tree as it is now, uncommitted changes included) as Release into
# exp/NAME/LABEL/fenns, and the lot is packed as exp/NAME.tar.xz (about 5 MB
# a variant). Then, from the repository root:
#   run: bash bench/ab.sh exp/NAME.tar.xz      carry: [".gl", "exp/NAME.tar.xz"]
# (.gl holds the Vulkan loader's packages: README's "Measuring on a real GPU").
#
#   bash bench/ab_pack.sh XA base=HEAD new=.
#   bash bench/ab_pack.sh XB before=091f2b7 after=HEAD
#
# Commits build from `git archive` copies under /tmp/fenns-ab (kept, so a
# second pack of the same commit only relinks; no worktree is registered);
# the working tree builds in build-ab/.
set -eu
if [ $# -lt 2 ]; then
    sed -n '2,16p' "$0" >&2
    exit 2
fi
root=$(git rev-parse --show-toplevel)
name=$1
shift
cd "$root"
rm -rf "exp/$name"
mkdir -p "exp/$name"
for variant in "$@"; do
    label=${variant%%=*} rev=${variant#*=}
    if [ "$label" = "$variant" ] || [ -z "$label" ] || [ -z "$rev" ]; then
        echo "ab_pack: '$variant' is not LABEL=REV" >&2
        exit 2
    fi
    commit=
    if [ "$rev" = . ]; then
        src=$root build=$root/build-ab
    else
        commit=$(git rev-parse --verify "$rev^{commit}")
        src=/tmp/fenns-ab/$commit build=/tmp/fenns-ab/$commit/build
        if [ ! -d "$src" ]; then
            rm -rf "$src.part" && mkdir -p "$src.part"
            git archive "$commit" | tar -x -C "$src.part"
            mv "$src.part" "$src"
        fi
    fi
    cmake -S "$src" -B "$build" -DCMAKE_BUILD_TYPE=Release > /dev/null
    cmake --build "$build" -j2 --target fenns_cli > /dev/null
    mkdir -p "exp/$name/$label"
    cp "$build/bin/fenns" "exp/$name/$label/fenns"
    short=$(git rev-parse --short "${commit:-HEAD}")
    changes=$([ "$rev" = . ] && ! git diff --quiet HEAD && echo ' + changes' || true)
    echo "$label: $rev ($short$changes)" >> "exp/$name/variants.txt"
done
tar cJf "exp/$name.tar.xz" -C exp "$name"
cat "exp/$name/variants.txt"
ls -l "exp/$name.tar.xz"
