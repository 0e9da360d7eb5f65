#!/usr/bin/python3
"""The peer `handsfree bench controls` measures against: pyatspi (Debian python3-pyatspi, over the same
libatspi) walks a window the way the shell's client does and prints how long each walk took.

Usage: /usr/bin/python3 python/pyatspi_walk.py WINDOW-TITLE RUNS
Prints one JSON object: {"controls": N, "seconds": [s, ...]}.

libatspi's cache is switched on as the shell's client switches it on. Each walk visits the window's showing elements in reading order and, for the roles the Controls view lists,
reads the name, states, action names and screen extents, as `AccessibilityClient.read` does.
"""
import json
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


def walk(window):
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
            found.append((role, node.name, actions, extents))
            if role in (pyatspi.ROLE_ENTRY, pyatspi.ROLE_PASSWORD_TEXT, pyatspi.ROLE_SPIN_BUTTON):
                continue
        if depth >= 64:
            continue
        for i in range(node.childCount - 1, -1, -1):
            stack.append((node.getChildAtIndex(i), depth + 1))
    return found


def main():
    title, runs = sys.argv[1], int(sys.argv[2])
    # libatspi's cache on, as the shell's client has it: the difference measured is the walk's own cost.
    from gi.repository import Atspi
    Atspi.Accessible.set_cache_mask(Atspi.get_desktop(0), Atspi.Cache.ALL)
    window = find(title)
    if window is None:
        raise SystemExit("no window called " + title)
    seconds = []
    count = 0
    for _ in range(runs):
        start = time.perf_counter()
        count = len(walk(window))
        seconds.append(time.perf_counter() - start)
    print(json.dumps({"controls": count, "seconds": seconds}))


if __name__ == "__main__":
    main()
