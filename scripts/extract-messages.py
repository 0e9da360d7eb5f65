#!/usr/bin/env python3
"""Extracts the translatable messages of the Swift sources into po/handsfree.pot (GNU gettext's template).

    scripts/extract-messages.py            write po/handsfree.pot
    scripts/extract-messages.py --check    exit 1 if po/handsfree.pot is not what the sources give now
    scripts/extract-messages.py --update   write the template, then msgmerge every po/LL.po of po/LINGUAS
    (--root DIR first: another tree than this script's)

What is a message (see docs/ARCHITECTURE.md, "Languages"): the first string literal given to `tr(`,
`N_(` or `UIMessage(`, and the two given to `trn(` or `.plural(` (singular, plural); a `context: "…"`
argument beside them is the msgctxt. A call whose first argument is not a literal (`ctx.tr(label)`, a
label marked with N_ where its table is) is a translation at run time, not a message.

Refused, each named by file:line, and nothing written: interpolation (`\\(`) in a message, a message that
is a literal joined to something else (`tr("a" + b)`), unbalanced braces (`{name}` placeholders only;
`{{` and `}}` are literal braces), the same msgid with two different plurals.

The template is made only from the sources, with no date in its header, so that it changes only when the
messages do; messages come in the order of their first use (file, then line), each with its `#:` file:line
references, and `#, python-brace-format` when it has placeholders, which `msgfmt --check-format` verifies.
"""
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SOURCES = "Sources"
POT = os.path.join("po", "handsfree.pot")
LINGUAS = os.path.join("po", "LINGUAS")

# Keyword -> how many leading positional literals are msgids (1: msgid; 2: msgid and msgid_plural).
KEYWORDS = {"tr": 1, "N_": 1, "UIMessage": 1, "trn": 2, "plural": 2}
# Keywords that count only after a dot (`.plural(` is UIMessage's; a bare `plural(` is something else).
DOTTED_ONLY = {"plural"}

HEADER = '''# Messages of HandsFree Shell, for translators.
# Made by scripts/extract-messages.py from the Swift sources; do not edit by hand.
# Start a language with: msginit -i po/handsfree.pot -l LL -o po/LL.po (then add LL to po/LINGUAS).
#
#, fuzzy
msgid ""
msgstr ""
"Project-Id-Version: handsfree\\n"
"Report-Msgid-Bugs-To: \\n"
"PO-Revision-Date: YEAR-MO-DA HO:MI+ZONE\\n"
"Last-Translator: FULL NAME <EMAIL@ADDRESS>\\n"
"Language-Team: LANGUAGE <LL@li.org>\\n"
"Language: \\n"
"MIME-Version: 1.0\\n"
"Content-Type: text/plain; charset=UTF-8\\n"
"Content-Transfer-Encoding: 8bit\\n"
"Plural-Forms: nplurals=INTEGER; plural=EXPRESSION;\\n"
'''


class Refused(Exception):
    def __init__(self, line, reason):
        super().__init__(reason)
        self.line = line
        self.reason = reason


class Token:
    __slots__ = ("kind", "text", "value", "line", "interpolated")

    def __init__(self, kind, text, line, value=None, interpolated=False):
        self.kind = kind          # "id", "str", "punct"
        self.text = text
        self.value = value        # the string literal's value
        self.line = line
        self.interpolated = interpolated


def decode_escape(s, i, line, hashes):
    """Decodes the escape at s[i] (just after the backslash and its hashes); returns (text, next index)."""
    c = s[i] if i < len(s) else ""
    simple = {"0": "\0", "\\": "\\", "t": "\t", "n": "\n", "r": "\r", '"': '"', "'": "'"}
    if c in simple:
        return simple[c], i + 1
    if c == "u" and i + 1 < len(s) and s[i + 1] == "{":
        end = s.find("}", i + 2)
        if end < 0:
            raise Refused(line, "an unterminated \\u{…} escape")
        return chr(int(s[i + 2:end], 16)), end + 1
    raise Refused(line, "an unknown escape \\%s" % c)


def tokenize(src):
    """Swift tokens enough to find calls and their string literals: identifiers, string literals (with
    their values), punctuation; comments skipped."""
    tokens = []
    i, line, n = 0, 1, len(src)
    while i < n:
        c = src[i]
        if c == "\n":
            line += 1
            i += 1
        elif c.isspace():
            i += 1
        elif src.startswith("//", i):
            end = src.find("\n", i)
            i = n if end < 0 else end
        elif src.startswith("/*", i):
            depth, i = 1, i + 2
            while i < n and depth:
                if src.startswith("/*", i):
                    depth, i = depth + 1, i + 2
                elif src.startswith("*/", i):
                    depth, i = depth - 1, i + 2
                else:
                    line += src[i] == "\n"
                    i += 1
        elif c == '"' or (c == "#" and re.match(r'#+"', src[i:])):
            tok, i, line = string_literal(src, i, line)
            tokens.append(tok)
        elif c.isalpha() or c == "_":
            m = re.match(r"[A-Za-z_][A-Za-z0-9_]*", src[i:])
            tokens.append(Token("id", m.group(0), line))
            i += len(m.group(0))
        else:
            tokens.append(Token("punct", c, line))
            i += 1
    return tokens


def string_literal(src, i, line):
    """Reads the string literal at src[i] (plain, multi-line, raw); returns its token, the index after it
    and the line it ends on."""
    start_line = line
    hashes = 0
    while src[i] == "#":
        hashes += 1
        i += 1
    multi = src.startswith('"""', i)
    quote = '"""' if multi else '"'
    close = quote + "#" * hashes
    escape = "\\" + "#" * hashes
    i += len(quote)
    value, interpolated = [], False
    while True:
        if i >= len(src):
            raise Refused(start_line, "a string literal without its end")
        if src.startswith(close, i):
            i += len(close)
            break
        if src.startswith(escape, i):
            j = i + len(escape)
            if j < len(src) and src[j] == "(":
                interpolated = True
                # Skip to the matching parenthesis: the interpolation is code.
                depth, j = 1, j + 1
                while j < len(src) and depth:
                    depth += {"(": 1, ")": -1}.get(src[j], 0)
                    line += src[j] == "\n"
                    j += 1
                value.append("\\(…)")
                i = j
                continue
            if multi and j < len(src) and src[j] == "\n":
                # A line continuation in a multi-line literal: joined after the indentation is removed, as
                # Swift does (the next line's indentation is not part of the text).
                line += 1
                value.append(CONTINUATION + "\n")
                i = j + 1
                continue
            text, i = decode_escape(src, j, line, hashes)
            value.append(text)
            continue
        if not multi and src[i] == "\n":
            raise Refused(start_line, "a string literal without its end")
        line += src[i] == "\n"
        value.append(src[i])
        i += 1
    text = "".join(value)
    if multi:
        text = dedent_multiline(text).replace(CONTINUATION + "\n", "")
    return Token("str", None, start_line, value=text, interpolated=interpolated), i, line


def dedent_multiline(text):
    """A multi-line literal's value: the line after the opening quotes to the line before the closing ones,
    the closing line's indentation removed from each line."""
    lines = text.split("\n")
    indent = lines[-1] if lines[-1].strip() == "" else ""
    body = lines[1:-1]
    return "\n".join(l[len(indent):] if l.startswith(indent) else l.lstrip() for l in body)


def arguments(tokens, k):
    """The arguments of the call whose "(" is tokens[k]: a list of (label, [tokens]); and the index after ")"."""
    args, current, depth, i = [], [], 0, k + 1
    while i < len(tokens):
        t = tokens[i]
        if t.kind == "punct" and t.text in "([{":
            depth += 1
        elif t.kind == "punct" and t.text in ")]}":
            if depth == 0:
                if current:
                    args.append(current)
                break
            depth -= 1
        elif t.kind == "punct" and t.text == "," and depth == 0:
            args.append(current)
            current = []
            i += 1
            continue
        current.append(t)
        i += 1
    out = []
    for a in args:
        if len(a) >= 2 and a[0].kind == "id" and a[1].kind == "punct" and a[1].text == ":":
            out.append((a[0].text, a[2:]))
        else:
            out.append((None, a))
    return out, i + 1


# Stands for a backslash ending a line of a multi-line literal until its lines lose their indentation.
CONTINUATION = "\x00"

BRACES = re.compile(r"\{\{|\}\}|\{([A-Za-z_][A-Za-z0-9_]*)\}|[{}]")


def placeholders(text, line):
    """The placeholder names of a message; refuses unbalanced braces."""
    names = []
    for m in BRACES.finditer(text):
        g = m.group(0)
        if g in ("{{", "}}"):
            continue
        if m.group(1) is None:
            raise Refused(line, "a brace that opens no {name} placeholder in %s (write {{ or }} for a brace)" % quote(text))
        names.append(m.group(1))
    return names


def literal(arg, line, what):
    """The value of an argument that must be one string literal, or None when it is not a literal at all."""
    if not arg or arg[0].kind != "str":
        return None
    t = arg[0]
    if len(arg) > 1:
        raise Refused(t.line, "%s must be one string literal, not a literal joined to something else" % what)
    if t.interpolated:
        raise Refused(t.line, "interpolation \\( in %s \"%s\": write a {name} placeholder and pass its value as an argument" % (what, t.value))
    if t.value == "":
        raise Refused(t.line, "an empty %s (the empty msgid is the catalog's header)" % what)
    return t.value


def messages_in(path, src):
    """(context, msgid, plural, line) of each message in one file; refusals as (line, reason)."""
    found, refused = [], []
    try:
        tokens = tokenize(src)
    except Refused as e:
        return [], [(e.line, e.reason)]
    for k, t in enumerate(tokens):
        if t.kind != "id" or t.text not in KEYWORDS:
            continue
        if k + 1 >= len(tokens) or tokens[k + 1].text != "(":
            continue
        prev = tokens[k - 1] if k else None
        if prev is not None and prev.kind == "id" and prev.text in ("func", "case", "var", "let"):
            continue  # a declaration, not a call
        dotted = prev is not None and prev.kind == "punct" and prev.text == "."
        if t.text in DOTTED_ONLY and not dotted:
            continue
        try:
            args, _ = arguments(tokens, k + 1)
            positional = [a for label, a in args if label is None]
            count = KEYWORDS[t.text]
            if not positional:
                continue
            msgid = literal(positional[0], t.line, "a msgid")
            if msgid is None:
                continue  # a translation at run time of a string marked where it is kept
            plural = None
            if count == 2:
                plural = literal(positional[1], t.line, "a plural msgid") if len(positional) > 1 else None
                if plural is None:
                    raise Refused(t.line, "%s( needs the plural as a second string literal" % t.text)
            context = None
            for label, a in args:
                if label == "context":
                    context = literal(a, t.line, "a context")
                    if context is None:
                        raise Refused(t.line, "context: must be a string literal where the msgid is one")
            names = placeholders(msgid, t.line)
            if plural is not None:
                extra = set(placeholders(plural, t.line)) - set(names) - {"n"}
                if extra:
                    raise Refused(t.line, "the plural %s has placeholders the singular has not: %s" % (quote(plural), ", ".join(sorted(extra))))
            found.append((context, msgid, plural, t.line))
        except Refused as e:
            refused.append((e.line, e.reason))
    return found, refused


def quote(s):
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n").replace("\t", "\\t") + '"'


def po_string(keyword, s):
    """A keyword and its string as GNU gettext writes them: one line, or an empty first line and a line
    per text line when the string holds line breaks."""
    if "\n" in s[:-1]:
        parts = s.split("\n")
        pieces = [p + "\n" for p in parts[:-1]] + ([parts[-1]] if parts[-1] else [])
        return keyword + ' ""\n' + "".join(quote(p) + "\n" for p in pieces)
    return keyword + " " + quote(s) + "\n"


def collect(root):
    """Every message of the sources, in the order of first use, with its references; and the refusals."""
    entries, order, refusals = {}, [], []
    files = []
    for base, dirs, names in os.walk(os.path.join(root, SOURCES)):
        dirs.sort()
        files += [os.path.join(base, n) for n in sorted(names) if n.endswith(".swift")]
    for path in sorted(files):
        rel = os.path.relpath(path, root)
        with open(path, encoding="utf-8") as f:
            src = f.read()
        found, refused = messages_in(rel, src)
        refusals += ["%s:%d: %s" % (rel, line, reason) for line, reason in refused]
        for context, msgid, plural, line in found:
            key = (context, msgid)
            if key not in entries:
                entries[key] = {"plural": plural, "refs": [], "first": (rel, line)}
                order.append(key)
            e = entries[key]
            if e["plural"] != plural:
                refusals.append("%s:%d: %s is used with two plurals (%s at %s:%d)" % (
                    rel, line, quote(msgid), quote(e["plural"] or "none"), e["first"][0], e["first"][1]))
            e["refs"].append("%s:%d" % (rel, line))
    return entries, order, refusals


def template(entries, order):
    out = [HEADER]
    for key in order:
        context, msgid = key
        e = entries[key]
        out.append("\n")
        refs = sorted(set(e["refs"]), key=lambda r: (r.rsplit(":", 1)[0], int(r.rsplit(":", 1)[1])))
        for r in refs:
            out.append("#: %s\n" % r)
        if placeholders(msgid, 0) or (e["plural"] and placeholders(e["plural"], 0)):
            out.append("#, python-brace-format\n")
        if context is not None:
            out.append(po_string("msgctxt", context))
        out.append(po_string("msgid", msgid))
        if e["plural"] is not None:
            out.append(po_string("msgid_plural", e["plural"]))
            out.append('msgstr[0] ""\nmsgstr[1] ""\n')
        else:
            out.append('msgstr ""\n')
    return "".join(out)


def messages_of(pot_text):
    """The (context, msgid, plural, flags) of each entry of a template's text, the header left out."""
    out = set()
    for block in pot_text.split("\n\n"):
        lines = [l for l in block.split("\n") if l and not l.startswith("#:")]
        fields, key, flags = {}, None, ""
        for l in lines:
            if l.startswith("#,"):
                flags = l
            elif l.startswith("#"):
                continue
            elif l.startswith('"') and key:
                fields[key] += l
            else:
                key, _, rest = l.partition(" ")
                fields[key] = rest
        if fields.get("msgid", '""') == '""' and "msgctxt" not in fields:
            continue
        unquote = lambda v: None if v is None else "".join(re.findall(r'"((?:[^"\\]|\\.)*)"', v))
        out.add((unquote(fields.get("msgctxt")), unquote(fields.get("msgid")), unquote(fields.get("msgid_plural")), flags))
    return out


def main(argv):
    global ROOT
    args = argv[1:]
    if len(args) >= 2 and args[0] == "--root":
        # Another tree (the tests' own): its Sources/ read, its po/ written.
        ROOT = os.path.abspath(args[1])
        args = args[2:]
    mode = args[0] if args else "--write"
    if mode not in ("--write", "--check", "--update", "-h", "--help"):
        print("extract-messages.py: unknown option %s (use --check or --update)" % mode, file=sys.stderr)
        return 2
    if mode in ("-h", "--help"):
        print(__doc__)
        return 0
    entries, order, refusals = collect(ROOT)
    if refusals:
        for r in refusals:
            print(r, file=sys.stderr)
        print("extract-messages.py: %d message%s refused; %s not written" % (len(refusals), "" if len(refusals) == 1 else "s", POT), file=sys.stderr)
        return 1
    text = template(entries, order)
    pot = os.path.join(ROOT, POT)
    if mode == "--check":
        try:
            with open(pot, encoding="utf-8") as f:
                old = f.read()
        except FileNotFoundError:
            old = ""
        # The messages are compared, not the #: references: a line added above a message moves its reference,
        # which needs no translator (the next --update refreshes them).
        wanted, have = messages_of(text), messages_of(old)
        if wanted != have:
            key = lambda m: tuple(x or "" for x in m)
            for m in sorted(wanted - have, key=key):
                print('%s lacks "%s"%s' % (POT, m[1], " (changed, or new)" if m[1] in {h[1] for h in have} else ""), file=sys.stderr)
            for m in sorted(have - wanted, key=key):
                print('%s has "%s", which the sources no longer have as it is' % (POT, m[1]), file=sys.stderr)
            print("%s is out of date with the sources: run scripts/extract-messages.py --update, translate what "
                  "msgmerge marks new or fuzzy in po/LL.po, and commit them" % POT, file=sys.stderr)
            return 1
        print("%s is up to date (%d messages)" % (POT, len(order)))
        return 0
    with open(pot, "w", encoding="utf-8") as f:
        f.write(text)
    print("wrote %s (%d messages)" % (POT, len(order)))
    if mode == "--update":
        with open(os.path.join(ROOT, LINGUAS), encoding="utf-8") as f:
            langs = [w for l in f for w in l.split("#")[0].split()]
        for lang in langs:
            po = os.path.join(ROOT, "po", lang + ".po")
            subprocess.run(["msgmerge", "--quiet", "--update", "--backup=none", "--no-wrap", po, pot], check=True)
            subprocess.run(["msgfmt", "--check", "--statistics", "-o", "/dev/null", po], check=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
