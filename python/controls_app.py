#!/usr/bin/python3
"""A small GTK 3 application whose controls the Controls tests and `handsfree bench controls` read and press.

Run with the Debian python (it has python3-gi): /usr/bin/python3 python/controls_app.py MODE OUT [N]

Modes:
  form OUT       a window "Form": a menu bar (File: Open, Quit), a "Name" text field, a "Password" field,
                 a "Remember me" check box, a "Colour" combo box and a "Submit" button. What happens to them
                 is written to OUT, one line each ("name=TEXT", "remember=True", "menu=Open", "submit").
  many OUT N     a window "Many" with N buttons "Button 1" ... "Button N"; a press writes "pressed=K" to OUT.
  hostile OUT    a window "Hostile" whose buttons have names with escape sequences and control characters, a
                 10,000-character name, no name at all, and two called "OK"; a press writes "pressed=K".
  tabs OUT       a window "Tabs" with a notebook of two tabs, "General" and "Advanced" (GTK's tabs have no
                 action: they are clicked with the pointer); a switch writes "tab=N" (0-based).
  huge OUT N     a window "Huge": a list of N rows (a GTK tree view, 100,000 rows in the tests) above a "Done" button.
  changing OUT   a window "Changing" with buttons "Keep", "Send" and "Doomed"; a press writes "pressed=LABEL".
                 On SIGUSR1 "Send" is relabelled "Delete" and "Doomed" is removed, then "changed" is written
                 (a list read before then is stale for those two entries).
  switch OUT     two windows "First" and "Second": "Go to second" in the first presents the second, and "Go to
                 first" in the second the first (the focus moves: the bench times the list's refresh).

The application writes "ready" to OUT once its windows show.
"""
import signal
import sys

import gi

gi.require_version("Gtk", "3.0")
from gi.repository import GLib, Gtk  # noqa: E402


def main():
    mode, out_path = sys.argv[1], sys.argv[2]
    out = open(out_path, "a", buffering=1)

    def note(line):
        out.write(line + "\n")

    windows = []
    if mode == "form":
        windows.append(form(note))
    elif mode == "many":
        windows.append(many(note, int(sys.argv[3])))
    elif mode == "hostile":
        windows.append(hostile(note))
    elif mode == "tabs":
        windows.append(tabs(note))
    elif mode == "huge":
        windows.append(huge(note, int(sys.argv[3])))
    elif mode == "switch":
        windows.extend(switch(note))
    elif mode == "changing":
        windows.append(changing(note))
    else:
        raise SystemExit("unknown mode " + mode)
    for w in windows:
        w.connect("destroy", Gtk.main_quit)
    GLib.timeout_add(300, lambda: note("ready") and False)
    Gtk.main()


def form(note):
    window = Gtk.Window(title="Form")
    box = Gtk.Box(orientation=Gtk.Orientation.VERTICAL, spacing=6)
    window.add(box)

    bar = Gtk.MenuBar()
    file_item = Gtk.MenuItem.new_with_mnemonic("_File")
    menu = Gtk.Menu()
    for label in ["Open", "Quit"]:
        item = Gtk.MenuItem(label=label)
        item.connect("activate", lambda _i, label=label: note("menu=" + label))
        menu.append(item)
    file_item.set_submenu(menu)
    bar.append(file_item)
    box.pack_start(bar, False, False, 0)

    def field(label_text, entry):
        row = Gtk.Box(spacing=6)
        label = Gtk.Label(label=label_text)
        label.set_mnemonic_widget(entry)
        row.pack_start(label, False, False, 0)
        row.pack_start(entry, True, True, 0)
        box.pack_start(row, False, False, 0)
        # The accessible name GTK gives a labelled entry, said outright so every toolkit version agrees.
        entry.get_accessible().set_name(label_text)

    name = Gtk.Entry()
    name.connect("changed", lambda e: note("name=" + e.get_text()))
    field("Name", name)
    password = Gtk.Entry()
    password.set_visibility(False)
    password.connect("changed", lambda e: note("password-length=%d" % len(e.get_text())))
    field("Password", password)

    remember = Gtk.CheckButton(label="Remember me")
    remember.connect("toggled", lambda b: note("remember=%s" % b.get_active()))
    box.pack_start(remember, False, False, 0)

    colour = Gtk.ComboBoxText()
    for c in ["Red", "Green", "Blue"]:
        colour.append_text(c)
    colour.set_active(0)
    colour.connect("changed", lambda c: note("colour=" + (c.get_active_text() or "")))
    colour.get_accessible().set_name("Colour")
    box.pack_start(colour, False, False, 0)

    submit = Gtk.Button(label="Submit")
    submit.connect("clicked", lambda _b: note("submit"))
    box.pack_start(submit, False, False, 0)
    window.show_all()
    return window


def many(note, count):
    window = Gtk.Window(title="Many")
    grid = Gtk.Grid()
    window.add(grid)
    columns = 40
    for i in range(count):
        button = Gtk.Button(label="Button %d" % (i + 1))
        button.connect("clicked", lambda _b, i=i: note("pressed=%d" % (i + 1)))
        grid.attach(button, i % columns, i // columns, 1, 1)
    window.show_all()
    return window


def hostile(note):
    window = Gtk.Window(title="Hostile")
    box = Gtk.Box(orientation=Gtk.Orientation.VERTICAL)
    window.add(box)
    names = [
        "Red\x1b[31m alert\x1b]0;owned\x07 now",
        "Bell\x07 and\x08 back\x7f space",
        "L" * 10000,
        None,
        "OK",
        "OK",
    ]
    for i, text in enumerate(names):
        if text is None:
            button = Gtk.Button.new_from_icon_name("edit-delete", Gtk.IconSize.BUTTON)
            button.get_accessible().set_name("")
        else:
            button = Gtk.Button(label="x")
            button.get_accessible().set_name(text)
        button.connect("clicked", lambda _b, i=i: note("pressed=%d" % (i + 1)))
        box.pack_start(button, False, False, 0)
    window.show_all()
    return window


def tabs(note):
    window = Gtk.Window(title="Tabs")
    book = Gtk.Notebook()
    for name in ["General", "Advanced"]:
        book.append_page(Gtk.Label(label="The %s page" % name), Gtk.Label(label=name))
    book.connect("switch-page", lambda _b, _p, n: note("tab=%d" % n))
    window.add(book)
    window.show_all()
    return window


def huge(note, rows):
    window = Gtk.Window(title="Huge")
    store = Gtk.ListStore(str)
    for i in range(rows):
        store.append(["Row %d" % (i + 1)])
    view = Gtk.TreeView(model=store)
    view.append_column(Gtk.TreeViewColumn("Name", Gtk.CellRendererText(), text=0))
    scroll = Gtk.ScrolledWindow()
    scroll.add(view)
    box = Gtk.Box(orientation=Gtk.Orientation.VERTICAL)
    box.pack_start(scroll, True, True, 0)
    done = Gtk.Button(label="Done")
    done.connect("clicked", lambda _b: note("done"))
    box.pack_start(done, False, False, 0)
    window.add(box)
    window.set_default_size(400, 300)
    window.show_all()
    return window


def changing(note):
    window = Gtk.Window(title="Changing")
    box = Gtk.Box(orientation=Gtk.Orientation.VERTICAL, spacing=6)
    window.add(box)
    buttons = {}
    for label in ["Keep", "Send", "Doomed"]:
        button = Gtk.Button(label=label)
        button.connect("clicked", lambda b: note("pressed=" + b.get_label()))
        box.pack_start(button, False, False, 0)
        buttons[label] = button

    def change():
        buttons["Send"].set_label("Delete")
        buttons["Doomed"].destroy()
        note("changed")
        return GLib.SOURCE_REMOVE

    # A child of a test process inherits its blocked signals.
    signal.pthread_sigmask(signal.SIG_UNBLOCK, [signal.SIGUSR1])
    GLib.unix_signal_add(GLib.PRIORITY_DEFAULT, signal.SIGUSR1, change)
    window.show_all()
    return window


def switch(note):
    first = Gtk.Window(title="First")
    second = Gtk.Window(title="Second")
    go = Gtk.Button(label="Go to second")
    go.connect("clicked", lambda _b: (second.show_all(), second.present(), note("second")))
    first.add(go)
    back = Gtk.Button(label="Go to first")
    back.connect("clicked", lambda _b: (first.present(), note("first")))
    second.add(back)
    first.show_all()
    return [first, second]


if __name__ == "__main__":
    main()
