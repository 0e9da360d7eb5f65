#!/usr/bin/python3
"""The peer `handsfree bench controls` measures against: pyatspi (Debian python3-pyatspi, over the same
libatspi) walks a window the way the shell's client does and prints how long each walk took.

Usage: /usr/bin/python3 python/pyatspi_walk.py WINDOW-TITLE RUNS [details|names [APP-PID]]
Prints one JSON object: {"controls": N, "seconds": [s, ...], "cpu": [s, ...], "app": [s, ...]}: each walk's
wall time, this process's CPU time, and the CPU time of the application APP-PID (when given) during the walk.

libatspi's cache is switched on as the shell's client switches it on. Each timed walk finds the window among
the applications' windows by its title (the client finds the focused one at each reading), visits its showing
elements in reading order and, for the roles the Controls view lists, reads the role, name and states, and
with `details` (the default) the action names and screen extents too: `names` reads what
`AccessibilityClient.read(details: false)` reads (the Controls view's list), `details` what
`AccessibilityClient.read()` reads (`handsfree controls --json`).
"""
import json
import os
import sys
import time

import pyatspi

ROLES = {
    pyatspi.ROLE_PUSH_BUTTON, pyatspi.ROLE_TOGGLE_BUTTON, pyatspi.ROLE_LINK, pyatspi.ROLE_MENU,
    pyatspi.ROLE_MENU_ITEM, pyatspi.ROLE_CHECK_MENU_ITEM, pyatspi.ROLE_RADIO_MENU_ITEM, pyatspi.ROLE_CHECK_BOX,
    pyatspi.ROLE_RADIO_BUTTON, pyatspi.ROLE_PAGE_TAB, pyatspi.ROLE_COMBO_BOX, pyatspi.ROLE_LIST_ITEM,
    pyatspi.ROLE_TREE_ITEM, pyatspi.ROLE_PASSWORD_TEXT, pyatspi.ROLE_ENTRY, pyatspi.ROLE_SPIN_BUTTON,
}


def find(title):
    desktop = pyatspi.Registry.getDesktop(0)
    for app in desktop:
        if app is None:
            continue
        for window in app:
            if window is not None and window.name == title:
                return window
    return None


def walk(window, details):
    found = []
    stack = [(window, 0)]
    seen = set()
    while stack:
        node, depth = stack.pop()
        if node is None or id(node) in seen:
            continue
        seen.add(id(node))
        states = node.getState()
        if depth > 0 and not states.contains(pyatspi.STATE_SHOWING):
            continue
        role = node.getRole()
        if role in ROLES:
            entry = (role, node.name, states)
            if details:
                actions = []
                try:
                    action = node.queryAction()
                    actions = [action.getName(i) for i in range(action.nActions)]
                except NotImplementedError:
                    pass
                try:
                    extents = node.queryComponent().getExtents(pyatspi.DESKTOP_COORDS)
                    extents = (extents.x, extents.y, extents.width, extents.height)
                except NotImplementedError:
                    extents = None
                entry += (actions, extents)
            found.append(entry)
            if role in (pyatspi.ROLE_ENTRY, pyatspi.ROLE_PASSWORD_TEXT, pyatspi.ROLE_SPIN_BUTTON):
                continue
        if depth >= 64:
            continue
        for i in range(node.childCount - 1, -1, -1):
            stack.append((node.getChildAtIndex(i), depth + 1))
    return found


def app_cpu(pid):
    """The CPU seconds (user and system) process `pid` has used, from /proc; 0 without a pid."""
    if not pid:
        return 0.0
    with open("/proc/%d/stat" % pid) as stat:
        fields = stat.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def main():
    title, runs = sys.argv[1], int(sys.argv[2])
    details = (sys.argv[3] if len(sys.argv) > 3 else "details") == "details"
    pid = int(sys.argv[4]) if len(sys.argv) > 4 else 0
    # libatspi's cache on, as the shell's client has it: the difference measured is the walk's own cost.
    from gi.repository import Atspi
    Atspi.Accessible.set_cache_mask(Atspi.get_desktop(0), Atspi.Cache.ALL)
    if find(title) is None:
        raise SystemExit("no window called " + title)
    seconds, cpu, app = [], [], []
    count = 0
    for _ in range(runs):
        # Finding the window is timed too: the shell's client finds it at every reading (the focus moves).
        start, used, app_used = time.perf_counter(), time.process_time(), app_cpu(pid)
        count = len(walk(find(title), details))
        seconds.append(time.perf_counter() - start)
        cpu.append(time.process_time() - used)
        app.append(app_cpu(pid) - app_used)
    print(json.dumps({"controls": count, "seconds": seconds, "cpu": cpu, "app": app}))


if __name__ == "__main__":
    main()
