#!/usr/bin/env python3
"""Writes the handsfree(1) man page (roff) from the argument parser's own description.

Usage: scripts/make-man.py BINARY > handsfree.1
Runs `BINARY --experimental-dump-help` (swift-argument-parser's JSON of every command, option and help
text) and turns it into one page: the root command, then a subsection per subcommand, nested ones included.
"""
import json
import os
import subprocess
import sys
import tempfile


# Typographic characters in help texts, spelled so every man device (also plain ASCII) can show them.
SPECIAL = {"\u2026": "...", "\u2014": "\\(em", "\u2013": "\\(en", "\u2192": "\\(->", "\u00d7": "\\(mu",
           "\u2018": "\\(oq", "\u2019": "\\(cq", "\u201c": "\\(lq", "\u201d": "\\(rq", "\u203a": ">"}


def roff(text):
    """Escapes text for roff: backslashes, and a leading dot or quote that would start a request."""
    text = text.replace("\\", "\\e").replace("-", "\\-")
    text = "".join(SPECIAL.get(c, c) for c in text)
    lines = []
    for line in text.splitlines():
        if line.startswith(".") or line.startswith("'"):
            line = "\\&" + line
        lines.append(line)
    return "\n".join(lines)


def names(arg):
    out = []
    for n in arg.get("names", []):
        out.append(("-" if n["kind"] == "short" else "--") + n["name"])
    return out


def synopsis_item(arg):
    value = arg.get("valueName", "value")
    kind = arg["kind"]
    if kind == "positional":
        s = "<" + value + ">"
    elif kind == "flag":
        s = (names(arg) or ["--" + value])[0]
    else:
        s = (names(arg) or ["--" + value])[0] + " <" + value + ">"
    if arg.get("isRepeating"):
        s += " ..."
    if arg.get("isOptional"):
        s = "[" + s + "]"
    return s


def arguments(cmd):
    return [a for a in cmd.get("arguments", []) if a.get("shouldDisplay", True)
            and a.get("valueName") not in ("help", "version")]


def describe_arguments(cmd, out):
    for arg in arguments(cmd):
        if arg["kind"] == "positional":
            label = "\\fI" + roff(arg.get("valueName", "value")) + "\\fR"
        else:
            label = ", ".join("\\fB" + roff(n) + "\\fR" for n in names(arg))
            if arg["kind"] == "option":
                label += " \\fI" + roff(arg.get("valueName", "value")) + "\\fR"
        out.append(".TP")
        out.append(label)
        help_text = arg.get("abstract", "")
        if arg.get("defaultValue") not in (None, ""):
            help_text += " (default: " + arg["defaultValue"] + ")"
        out.append(roff(help_text) if help_text else "")


def command_section(cmd, path, out, level):
    shown = [c for c in cmd.get("subcommands", []) if c.get("shouldDisplay", True) and c["commandName"] != "help"]
    full = " ".join(path)
    out.append(".SH " + roff(full.upper()) if level == 0 else ".SS \"" + roff(full) + "\"")
    if cmd.get("abstract"):
        out.append(roff(cmd["abstract"]))
    out.append(".PP")
    synopsis = "\\fB" + roff(full) + "\\fR " + " ".join(roff(synopsis_item(a)) for a in arguments(cmd))
    if shown:
        synopsis += " <subcommand>"
    out.append(synopsis.rstrip())
    if cmd.get("discussion"):
        out.append(".PP")
        out.append(".nf")
        out.append(roff(cmd["discussion"]))
        out.append(".fi")
    describe_arguments(cmd, out)
    for sub in shown:
        command_section(sub, path + [sub["commandName"]], out, level + 1)


def english():
    """The environment the binary is run in: the page is English (help texts come from the catalog of the
    user's language otherwise), whatever the installer's locale or its user's `language` setting."""
    env = {k: v for k, v in os.environ.items() if k not in ("LANGUAGE", "LC_ALL", "LC_MESSAGES", "LANG")}
    env["LC_ALL"] = "C"
    env["HANDSFREE_CONFIG_DIR"] = tempfile.mkdtemp(prefix="make-man-")
    return env


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: make-man.py BINARY > handsfree.1")
    env = english()
    dump = subprocess.run([sys.argv[1], "--experimental-dump-help"], check=True, capture_output=True, text=True,
                          env=env).stdout
    root = json.loads(dump)["command"]
    name = root["commandName"]
    out = ['.TH "' + name.upper() + '" "1" "" "HandsFree Shell" "User Commands"',
           ".SH NAME",
           name + " \\- " + roff(root.get("abstract", "")),
           ".SH SYNOPSIS",
           "\\fB" + name + "\\fR <subcommand> [options]",
           ".SH DESCRIPTION",
           roff(root.get("abstract", "")),
           "Each subcommand is described below; \\fB" + name + " help\\fR \\fIsubcommand\\fR prints the same text."]
    out.append(".SH COMMANDS")
    for sub in root.get("subcommands", []):
        if sub.get("shouldDisplay", True) and sub["commandName"] != "help":
            command_section(sub, [name, sub["commandName"]], out, 1)
    # Every setting of settings.toml, from the schema the shell reads it with (docs/settings.md is the same).
    out.append(subprocess.run([sys.argv[1], "settings-reference", "--man"], check=True, capture_output=True,
                              text=True, env=env).stdout.rstrip("\n"))
    out += [".SH FILES",
            ".TP", "\\fI<prefix>/share/handsfree\\fR",
            "keymaps/, config/ and wordlists/; also looked for in $HANDSFREE_HOME and each $XDG_DATA_DIRS/handsfree.",
            ".TP", "\\fI$XDG_DATA_HOME/handsfree\\fR",
            "notes, messages and user\\-words.txt (or \\fB\\-\\-data\\-dir\\fR, $HANDSFREE_DATA_DIR).",
            ".TP", "\\fI$XDG_CONFIG_HOME/handsfree/settings.toml\\fR", "the Settings screen's choices (see SETTINGS).",
            ".TP", "\\fI$XDG_STATE_HOME/handsfree/handsfree.log\\fR", "the log.",
            ".SH SEE ALSO", "\\fBhandsfree doctor\\fR checks an installation."]
    sys.stdout.write("\n".join(out) + "\n")


if __name__ == "__main__":
    main()
