#!/usr/bin/env bash
# Builds .device/prefix (or $1): the Debian 12 packages the build needs (xsimd, doctest, oneTBB
# and its runtime) unpacked into one prefix, for a GPU machine that has a compiler, CMake and
# the CUDA Toolkit but no package registry. Carry it there and point the build at it:
#   CMAKE_PREFIX_PATH=$PWD/.device/prefix bash examples/run.sh cuda
#   LD_LIBRARY_PATH=$PWD/.device/prefix/lib/x86_64-linux-gnu ...   (for the tbb and all presets)
set -euo pipefail
cd "$(dirname "$0")/.."
prefix=$(realpath -m "${1:-.device/prefix}")
packages=(libxsimd-dev doctest-dev libtbb-dev libtbb12 libtbbmalloc2 libtbbbind-2-5 libhwloc15)
work=$(mktemp -d)
(cd "$work" && apt-get download "${packages[@]}" >/dev/null)
rm -rf "$prefix" && mkdir -p "$prefix"
for deb in "$work"/*.deb; do dpkg -x "$deb" "$work/root"; done
cp -a "$work/root/usr/." "$prefix/"
rm -rf "$work" "$prefix/share/doc" "$prefix/share/man"
echo "$prefix: $(du -sh "$prefix" | cut -f1) ($(echo "${packages[@]}"))"
