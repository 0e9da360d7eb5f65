#!/usr/bin/env bash
# Removes what scripts/install.sh installed under a prefix (default ~/.local): exactly the files listed in
# PREFIX/share/handsfree/install-manifest.txt, the Python venv the installed python-env.sh made
# (PREFIX/share/handsfree/.venv, install.sh --with), then the folders it lists (those install created) if
# they are empty. Nothing else is touched: a file the user put beside them stays, and so does its folder.
#
# Usage: scripts/uninstall.sh [--prefix DIR]
set -euo pipefail
prefix="${HOME:?HOME is not set}/.local"
while [[ $# -gt 0 ]]; do
    case "$1" in
        --prefix) [[ $# -ge 2 ]] || { echo "uninstall.sh: --prefix needs a folder" >&2; exit 2; }; prefix=$2; shift 2 ;;
        --prefix=*) prefix=${1#--prefix=}; shift ;;
        -h|--help) sed -n '2,/^[^#]/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) echo "uninstall.sh: unknown argument '$1' (use --prefix DIR)" >&2; exit 2 ;;
    esac
done
[[ "$prefix" == /* ]] || prefix="$PWD/$prefix"
prefix=${prefix%/}
manifest="$prefix/share/handsfree/install-manifest.txt"
if [[ ! -f "$manifest" ]]; then
    echo "uninstall.sh: no HandsFree Shell install in $prefix ($manifest not found); nothing removed" >&2
    exit 1
fi
if ! head -1 "$manifest" | grep -q '^# HandsFree Shell install manifest'; then
    echo "uninstall.sh: $manifest is not an install manifest; nothing removed" >&2
    exit 1
fi

files=()
dirs=()
while read -r kind rel; do
    case "$kind" in
        file)
            # Only paths inside the prefix, never climbing out of it.
            if [[ -z "$rel" || "$rel" == /* || "/$rel/" == */../* ]]; then
                echo "uninstall.sh: $manifest: skipping suspicious entry '$rel'" >&2; continue
            fi
            files+=("$prefix/$rel") ;;
        dir) if [[ "$rel" == /* ]]; then dirs+=("$rel"); else dirs+=("$prefix/$rel"); fi ;;
    esac
done < "$manifest"

removed=0
# The venv python-env.sh made beside the data: only a folder that is a venv (pyvenv.cfg) and not a link.
venv="$prefix/share/handsfree/.venv"
if [[ -d "$venv" && ! -L "$venv" && -f "$venv/pyvenv.cfg" ]]; then
    rm -rf "$venv"
    echo "removed the Python parts in $venv"
fi
for f in "${files[@]}"; do
    if [[ -f "$f" || -L "$f" ]]; then rm -f "$f"; removed=$((removed + 1)); fi
done
# Deepest folders first, so a parent is empty by the time it is tried.
mapfile -t sorted < <(for d in "${dirs[@]}"; do echo "$d"; done | awk '{ print gsub("/", "/"), $0 }' | sort -rn | cut -d' ' -f2-)
for d in "${sorted[@]}"; do
    [[ -d "$d" ]] && rmdir "$d" 2>/dev/null || true
done
echo "removed $removed files of HandsFree Shell from $prefix"
