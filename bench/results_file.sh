#!/usr/bin/env bash
# Writes a results file of the benchmarks: its hand-written head kept (everything down to the
# marker line), then what the run wrote, from standard input. A file without the marker gets a
# title and the marker.
#
#   bench/results_file.sh FILE MARKER TITLE < generated
set -euo pipefail

out=$1 marker=$2 title=$3
{
    if [ -f "$out" ] && grep -qxF -- "$marker" "$out"; then
        awk -v marker="$marker" '{ print } $0 == marker { exit }' "$out"
    else
        printf '# %s\n\n%s\n' "$title" "$marker"
    fi
    echo
    cat
} >"$out.kept"
mv "$out.kept" "$out"
echo "written: $out" >&2
