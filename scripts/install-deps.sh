#!/usr/bin/env bash
# Installs the Debian packages HandsFree Shell builds and tests with, if any are missing.
# Runs as root, or through sudo when not root. Safe to run again: it installs only what is missing.
set -euo pipefail

packages=(
  pkg-config zlib1g-dev libdeflate-dev                                    # .gesichter containers (zlib streams, libdeflate whole)
  libpocketsphinx-dev libsphinxbase-dev pocketsphinx-en-us pocketsphinx   # speech (and the reference decoder)
  libasound2-dev                                                          # ALSA capture
  libncurses-dev                                                          # ncursesw
  tmux                                                                    # end-to-end terminal tests
  time                                                                    # GNU time: peak memory of the built binary in end-to-end tests
  flite sox                                                               # synthetic speech for tests and benchmarks
  flite1-dev                                                              # the in-process flite voice (say, Speak)
  espeak-ng                                                               # the espeak voice (other languages: say --voice espeak)
  presage                                                                 # the peer word predictor we compare against
  dasher-data fortunes-es fortunes-de fortunes-br debian-faq-fr debian-faq-it debian-faq-nl  # texts prediction is measured on, per language (ksr, bench language)
  libvterm-dev                                                            # terminal emulation for hosted programs
  vim less                                                                # full-screen programs the pty tests run
  libx11-dev libxtst-dev                                                  # the X11 output sink (XTest)
  xvfb xterm xdotool x11-xkb-utils x11-xserver-utils x11-utils            # a real X desktop for the X11 sink's tests (setxkbmap, xmodmap, xev)
  python3 python3-venv                                                    # scripts/make-man.py, word-list scripts, the project venv (scripts/python-env.sh)
  gettext                                                                 # msgfmt: the translations compiled at install (po/*.po), msgmerge, msginit
  libc-l10n                                                               # glibc's translations: the system's error texts (strerror) in the user's language
  lld                                                                     # links the libFuzzer targets (ld.gold crashes on them)
  libwayland-dev libxkbcommon-dev                                         # the Wayland virtual-keyboard sink
  sway foot wtype                                                         # a headless Wayland desktop for its tests, and the peer typist
  libatspi2.0-dev at-spi2-core dbus                                       # the Controls view: the accessibility bus (AT-SPI) and its client library
  zenity python3-gi gir1.2-gtk-3.0                                        # GTK 3 windows whose controls the Controls tests and bench read
  python3-pyatspi                                                         # the peer walk bench controls measures against
  firefox-esr                                                             # a real browser's page for the Controls tests (large, but a test uses it)
  tuxpaint-stamps-default                                                 # real recorded Spanish and French speech with transcripts (160 MB, but tests use it: bench speech --speech tuxpaint)
  asterisk-core-sounds-it asterisk-core-sounds-it-wav                    # real recorded Italian sentences with transcripts (Asterisk's prompts, 18 MB download, 23 MB installed; tests use it)
  asterisk-core-sounds-es asterisk-core-sounds-es-wav asterisk-core-sounds-fr asterisk-core-sounds-fr-wav asterisk-core-sounds-en asterisk-core-sounds-en-wav  # the same in Spanish, French, English for bench speech --speech asterisk (61 MB download, 80 MB installed)
)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all ${#packages[@]} Debian packages are present"
  exit 0
fi

sudo=""
if [ "$(id -u)" -ne 0 ]; then
  command -v sudo >/dev/null || { echo "install-deps: need root or sudo to install: ${missing[*]}" >&2; exit 1; }
  sudo="sudo"
fi
echo "install-deps: installing ${missing[*]}"
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
