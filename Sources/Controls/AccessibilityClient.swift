#if canImport(Glibc)
import Glibc
#endif
import CAtspi
import Foundation
import Localization
import Shell
import SystemIO

/// Why the accessibility bus could not be read or an element could not be acted on, in plain words.
public struct ControlsError: Error, CustomStringConvertible, Equatable, Sendable {
    public let description: String
    /// The problem as the user reads it (as `description` where it was not worded for translation).
    public let message: UIMessage
    /// The element the action was for has gone or changed since the list was read: read it again.
    public let stale: Bool
    public init(_ description: String, stale: Bool = false) {
        self.description = description; message = .verbatim(description); self.stale = stale
    }
    public init(_ message: UIMessage, stale: Bool = false) { description = message.english; self.message = message; self.stale = stale }
}

/// What acting on a control did.
public enum ControlOutcome: Equatable, Sendable {
    /// One of the element's own actions ran (`click`, `press`, `jump`, …).
    case acted(action: String)
    /// A text field has the keyboard focus now: what is typed next goes there.
    case focused
    /// The element has no action: a pointer click at the centre of these extents is what is left.
    case needsPointer(ControlExtents)
}

/// The controls of the focused window, read from the accessibility bus (AT-SPI) through libatspi, the
/// library screen readers use; the only importer of `CAtspi`.
///
/// Not thread-safe: libatspi keeps one connection and one main context per process, so one thread owns the
/// client (the CLI's, or `LiveControls`' worker). Every bus call times out within a second
/// (`atspi_set_timeout`), a walk stops at `ControlsLimits.nodes` elements and at `budget` seconds, and
/// names are cleaned before anything shows or logs them. The bus is found through the session bus only,
/// never the X root window or an autolaunched session: libatspi aborts the process when a call finds no bus,
/// so nothing is called on it unless `connect` found one.
public final class AccessibilityClient {
    typealias Element = UnsafeMutablePointer<AtspiAccessible>

    /// How long one bus call may take, in milliseconds.
    public static let callTimeout: Int32 = 1000
    /// How long one walk may take, in seconds, before the list is cut and the application named as slow.
    public var budget: Double = 3

    /// Set `org.a11y.Status IsEnabled`, as screen readers do, so browsers expose their pages.
    public let enable: Bool
    /// Ask an application for actions and extents on a connection of its own (`handsfree_atspi_direct`)
    /// where it offers one, not through the bus daemon. Off only to measure the difference
    /// (`bench controls`).
    public var direct = true
    /// The applications' own connections by their bus names; nil for one that offers none.
    private var links: [String: OpaquePointer?] = [:]
    private var generation = 0
    /// The elements of the last reading, retained, by `DesktopControl.index`.
    private var elements: [Element] = []
    private var elementsGeneration = -1
    /// The window of the last reading, retained, and its title: a control's place is found from it.
    private var window: (element: Element, title: String)?

    /// Connecting happens once a process: libatspi cannot be initialised twice.
    nonisolated(unsafe) private static var connection: Result<Void, ControlsError>?

    /// Times the bus's calls and the walk's budget.
    private let clock: any ShellClock

    /// The accessibility bus's address when libatspi connected to it (it cannot connect again in the same
    /// process: a bus that restarts needs a new client process, see `LiveControls`).
    nonisolated(unsafe) private static var connectedAddress: String?

    /// `firstGeneration` numbers the first reading: a client that takes over from another (a new worker
    /// after the bus restarted) starts past the old one's readings, so no entry of an old list names an
    /// element of a new one.
    public init(enable: Bool = true, firstGeneration: Int = 0, clock: any ShellClock = LiveClock()) {
        self.enable = enable
        generation = firstGeneration
        self.clock = clock
    }

    /// Whether the accessibility bus this process connected to has gone or been replaced by another (the
    /// session bus gives another address, or none): libatspi then reads nothing more, and a new client
    /// process must take over. False before any connection.
    public func busRestarted() -> Bool {
        guard let connected = Self.connectedAddress else { return false }
        var address = [CChar](repeating: 0, count: 1024)
        guard handsfree_a11y_address(&address, address.count, Self.callTimeout) == 0 else { return true }
        return String(decoding: address.prefix(while: { $0 != 0 }).map { UInt8(bitPattern: $0) }, as: UTF8.self) != connected
    }

    deinit {
        release()
        if let window { handsfree_atspi_unref(UnsafeMutableRawPointer(window.element)) }
        for case let link? in links.values { handsfree_atspi_close(link) }
        if let listener {
            var error: UnsafeMutablePointer<GError>?
            for name in Self.events { _ = atspi_event_listener_deregister(listener, name, &error); _ = Self.take(&error) }
            handsfree_atspi_unref(UnsafeMutableRawPointer(listener))
        }
    }

    /// Finds the accessibility bus and initialises libatspi (once a process); the reason when there is none.
    public func connect() throws(ControlsError) {
        if let connection = Self.connection {
            if case .failure(let error) = connection { throw error }
            return
        }
        // Not remembered: a bus that starts later is found at the next call.
        if let problem = Self.locate(enable: enable) { throw ControlsError(problem) }
        let status = atspi_init()
        if status != 0 && status != 1 {
            let error = ControlsError(UIMessage("the accessibility bus did not take the connection (libatspi said {status})", ["status": String(status)]))
            Self.connection = .failure(error)
            throw error
        }
        Self.connectedAddress = getenv("AT_SPI_BUS_ADDRESS").map { String(cString: $0) }
        atspi_set_timeout(Self.callTimeout, Self.callTimeout)
        // libatspi keeps what applications tell it (roles, names, states, children) only when asked to, or
        // inside its own main loop; the events that keep it current are handled whenever the client
        // dispatches, which it does before every reading.
        if let desktop = atspi_get_desktop(0) {
            atspi_accessible_set_cache_mask(desktop, ATSPI_CACHE_ALL)
            handsfree_atspi_unref(UnsafeMutableRawPointer(desktop))
        }
        Self.connection = .success(())
    }

    /// Reads the controls of the focused window, or of the first window whose application or title holds
    /// `window` (case ignored). Never throws: a problem is the snapshot's `problem`.
    ///
    /// Role, name and states come from libatspi's cache, which the applications keep current with events;
    /// with `details`, each control's action names and screen extents are asked of the application too (all
    /// the requests sent before any answer is awaited). Without, they are left empty: the Controls view
    /// needs none of them to draw, and `perform` asks for what it needs itself.
    public func read(window: String? = nil, details: Bool = true) -> ControlsSnapshot {
        generation += 1
        release()
        do throws(ControlsError) { try connect() } catch {
            return ControlsSnapshot(generation: generation, application: "", window: "", controls: [], problem: error.message)
        }
        _ = handsfree_atspi_dispatch(1000)
        var silent: [String] = []
        guard let found = findWindow(matching: window, silent: &silent) else {
            if let app = silent.first {
                return ControlsSnapshot(generation: generation, application: app, window: "", controls: [],
                                        problem: UIMessage("{application} does not answer in time", ["application": app]))
            }
            let problem = window.map { UIMessage("no window of an accessible application is called {name}", ["name": ControlNames.clean($0, limit: 60)]) }
                ?? UIMessage("no window of an accessible application has the focus")
            return ControlsSnapshot(generation: generation, application: "", window: "", controls: [], problem: problem)
        }
        if let old = self.window { handsfree_atspi_unref(UnsafeMutableRawPointer(old.element)) }
        self.window = (found.window, found.title)
        var walk = Walk(deadline: clock.now() + budget, clock: clock)
        walk.run(from: found.window)
        if details { walk.readDetails(direct: direct ? link(for: found.window) : nil) }
        elements = walk.found.map(\.element)
        elementsGeneration = generation
        var problem: UIMessage?
        let application = ["application": found.application]
        if walk.slow {
            problem = UIMessage("{application} does not answer in time: the list shows what it gave", application)
        } else if walk.truncated || walk.cut {
            problem = UIMessage("{application} has more elements than are read: the list shows the first part", application)
        } else if walk.found.isEmpty {
            problem = UIMessage("{application} shows no controls to the accessibility bus", application)
        }
        return ControlsSnapshot(generation: generation, application: found.application, window: found.title,
                                controls: walk.found.map(\.control), truncated: walk.truncated || walk.cut || walk.slow,
                                problem: problem)
    }

    /// Acts on the control `target` names: its default action, the focus for a text field, else
    /// `.needsPointer` with where to click. Throws a `stale` error when the element is gone or changed.
    public func perform(_ target: ControlTarget) throws(ControlsError) -> ControlOutcome {
        try connect()
        guard target.generation == elementsGeneration, elements.indices.contains(target.index) else {
            throw ControlsError(UIMessage("the list is out of date: it is read again"), stale: true)
        }
        let element = elements[target.index]
        let raw = element
        // Fresh from the application, not libatspi's cache: an element that went away answers with an error.
        atspi_accessible_clear_cache(raw)
        var error: UnsafeMutablePointer<GError>?
        let role = atspi_accessible_get_role(raw, &error)
        let name = atspi_accessible_get_name(raw, &error)
        defer { g_free(name) }
        let states = handsfree_atspi_states(raw)
        if Self.take(&error) != nil || states & Self.bit(ATSPI_STATE_DEFUNCT) != 0 {
            throw ControlsError(UIMessage("{control} is no longer there", reasons: ["control": Self.describe(target)]), stale: true)
        }
        let current = name.map { ControlNames.clean(String(cString: $0)) } ?? ""
        guard Self.map(role: role, states: states, hasAction: true) == target.role, current == target.name else {
            throw ControlsError(UIMessage("{control} has changed", reasons: ["control": Self.describe(target)]), stale: true)
        }
        if states & Self.bit(ATSPI_STATE_SENSITIVE) == 0 && states & Self.bit(ATSPI_STATE_ENABLED) == 0 {
            throw ControlsError(UIMessage("{control} is greyed out", reasons: ["control": Self.describe(target)]))
        }
        if target.role.takesText {
            if let component = atspi_accessible_get_component_iface(raw) {
                defer { handsfree_atspi_unref(UnsafeMutableRawPointer(component)) }
                if atspi_component_grab_focus(component, &error) != 0, Self.take(&error) == nil { return .focused }
                _ = Self.take(&error)
            }
        }
        if handsfree_atspi_has(raw, "Action") != 0, let action = atspi_accessible_get_action_iface(raw) {
            defer { handsfree_atspi_unref(UnsafeMutableRawPointer(action)) }
            let names = Self.actionNames(action)
            if let chosen = Self.defaultAction(names) {
                let done = atspi_action_do_action(action, Int32(chosen), &error)
                if let reason = Self.take(&error) {
                    throw ControlsError(UIMessage("{control} did not take {action}: {reason}", ["action": names[chosen], "reason": reason],
                                                  reasons: ["control": Self.describe(target)]))
                }
                if done == 0 {
                    throw ControlsError(UIMessage("{control} refused {action}", ["action": names[chosen]], reasons: ["control": Self.describe(target)]))
                }
                return .acted(action: names[chosen])
            }
        }
        if let extents = Self.extents(raw) ?? target.extents, extents.isUsable { return .needsPointer(placed(extents)) }
        throw ControlsError(UIMessage("{control} has no action and no place on the screen to click", reasons: ["control": Self.describe(target)]))
    }

    /// Counts the bus's events that can make a reading out of date (a window activated or closed, children
    /// added or removed, a name or a state changed, a page loaded) once `watch` has registered for them.
    private final class Changes {
        var count = 0
    }
    private let changes = Changes()
    private var listener: UnsafeMutablePointer<AtspiEventListener>?

    /// The events `watch` listens for.
    public static let events = [
        "window:activate", "window:deactivate", "window:create", "window:destroy",
        "object:children-changed", "object:property-change:accessible-name", "document:load-complete",
        "object:state-changed:showing", "object:state-changed:checked", "object:state-changed:expanded",
        "object:state-changed:sensitive", "object:state-changed:selected",
    ]

    /// Listens for the events that make a reading out of date; `takeChanges` counts them. Without a running
    /// registry there are none, and the caller polls instead.
    public func watch() throws(ControlsError) {
        try connect()
        if listener != nil { return }
        let made = atspi_event_listener_new({ event, data in
            if let event { g_boxed_free(atspi_event_get_type(), event) }
            guard let data else { return }
            Unmanaged<Changes>.fromOpaque(data).takeUnretainedValue().count += 1
        }, Unmanaged.passUnretained(changes).toOpaque(), nil)
        guard let made else { throw ControlsError(UIMessage("the accessibility bus's events cannot be listened to")) }
        listener = made
        var error: UnsafeMutablePointer<GError>?
        for name in Self.events {
            if atspi_event_listener_register(made, name, &error) == 0 || Self.take(&error) != nil {
                throw ControlsError(UIMessage("the accessibility bus does not send {name} events", ["name": name]))
            }
        }
    }

    /// How many of the watched events came since the last call (handles what is waiting first).
    public func takeChanges() -> Int {
        _ = handsfree_atspi_dispatch(10_000)
        defer { changes.count = 0 }
        return changes.count
    }

    /// Where `extents`, in the toolkit's screen coordinates, are on the desktop the pointer moves over. On X11
    /// they are that already. Under sway they are the window's own (a Wayland program is never told where
    /// its window is): the element keeps its offset inside the window, and the window is where sway's tree
    /// says (`SwayTree`), found by the application's process and the window's title.
    private func placed(_ extents: ControlExtents) -> ControlExtents {
        guard let window, let tree = SwayTree.read(), let frame = Self.extents(window.element) else { return extents }
        var error: UnsafeMutablePointer<GError>?
        let pid = atspi_accessible_get_process_id(window.element, &error)
        guard Self.take(&error) == nil, let origin = tree.origin(pid: Int(pid), title: window.title) else { return extents }
        return ControlExtents(x: origin.x + extents.x - frame.x, y: origin.y + extents.y - frame.y,
                              width: extents.width, height: extents.height)
    }

    /// The desktop's size in pixels, for a pointer click: sway's whole desktop under sway, else as the bus
    /// gives it (the frame extents are in).
    public func screenSize() -> (width: Int, height: Int)? {
        if let tree = SwayTree.read() { return tree.desktop }
        guard (try? connect()) != nil, let desktop = atspi_get_desktop(0) else { return nil }
        defer { handsfree_atspi_unref(UnsafeMutableRawPointer(desktop)) }
        guard let component = atspi_accessible_get_component_iface(desktop) else { return nil }
        defer { handsfree_atspi_unref(UnsafeMutableRawPointer(component)) }
        var error: UnsafeMutablePointer<GError>?
        guard let rect = atspi_component_get_extents(component, ATSPI_COORD_TYPE_SCREEN, &error) else {
            _ = Self.take(&error)
            return nil
        }
        defer { g_free(rect) }
        _ = Self.take(&error)
        return rect.pointee.width > 0 && rect.pointee.height > 0 ? (Int(rect.pointee.width), Int(rect.pointee.height)) : nil
    }

    /// Finds the accessibility bus without marking it in use (for `doctor`): nil when it answers, else why not.
    public static func probe() -> UIMessage? { locate(enable: false) }

    /// Finds the accessibility bus (and marks it in use when `enable`): nil when it answers, else why not, in
    /// words to translate around D-Bus's own (which D-Bus does not translate).
    static func locate(enable: Bool) -> UIMessage? {
        var problem = [CChar](repeating: 0, count: 512)
        let status = handsfree_a11y_locate(enable ? 1 : 0, callTimeout, &problem, problem.count)
        let said = ControlNames.clean(String(decoding: problem.prefix(while: { $0 != 0 }).map { UInt8(bitPattern: $0) }, as: UTF8.self), limit: 300)
        return busProblem(status: status, said: said)
    }

    /// The words for `handsfree_a11y_locate`'s answer `status`, with D-Bus's reason `said` (may be empty).
    public static func busProblem(status: Int32, said: String) -> UIMessage? {
        switch status {
        case 0: return nil
        case 1: return UIMessage("there is no D-Bus session (DBUS_SESSION_BUS_ADDRESS is not set)")
        case 2: return said.isEmpty ? UIMessage("the D-Bus session does not answer")
                                    : UIMessage("the D-Bus session does not answer ({reason})", ["reason": said])
        default: return said.isEmpty ? UIMessage("the accessibility bus is not running (org.a11y.Bus gives no address)")
                                     : UIMessage("the accessibility bus is not running (org.a11y.Bus: {reason})", ["reason": said])
        }
    }

    /// The applications on the bus that show no window, or only windows with nothing in them: a Chromium
    /// or Electron program started without `--force-renderer-accessibility` looks so. Each with its toolkit.
    public func emptyApplications() -> [(name: String, toolkit: String)] {
        guard (try? connect()) != nil, let desktop = atspi_get_desktop(0) else { return [] }
        defer { handsfree_atspi_unref(UnsafeMutableRawPointer(desktop)) }
        _ = handsfree_atspi_dispatch(1000)
        var error: UnsafeMutablePointer<GError>?
        let apps = atspi_accessible_get_child_count(desktop, &error)
        _ = Self.take(&error)
        var empty: [(name: String, toolkit: String)] = []
        for a in 0..<max(0, min(apps, 500)) {
            guard let app = atspi_accessible_get_child_at_index(desktop, a, &error) else { _ = Self.take(&error); continue }
            defer { handsfree_atspi_unref(UnsafeMutableRawPointer(app)) }
            let windows = atspi_accessible_get_child_count(app, &error)
            if Self.take(&error) != nil { continue }
            var contents = 0
            for w in 0..<max(0, min(windows, 200)) {
                guard let window = atspi_accessible_get_child_at_index(app, w, &error) else { _ = Self.take(&error); continue }
                contents += Int(max(0, atspi_accessible_get_child_count(window, &error)))
                _ = Self.take(&error)
                handsfree_atspi_unref(UnsafeMutableRawPointer(window))
            }
            guard contents == 0 else { continue }
            let toolkit = atspi_accessible_get_toolkit_name(app, &error)
            _ = Self.take(&error)
            empty.append((Self.name(app), toolkit.map { ControlNames.clean(String(cString: $0), limit: 40) } ?? ""))
            g_free(toolkit)
        }
        return empty
    }

    /// Drops the elements of the last reading.
    private func release() {
        for element in elements { handsfree_atspi_unref(UnsafeMutableRawPointer(element)) }
        elements = []
        elementsGeneration = -1
    }

    // MARK: finding the window

    private struct FoundWindow {
        let window: Element
        let application: String
        let title: String
    }

    /// The active window of any application (the last one if several say so), else the first window whose
    /// application or title holds `wanted`; when nothing is wanted and none is active, the only showing
    /// window if there is exactly one (an X server without a window manager activates none).
    private func findWindow(matching wanted: String?, silent: inout [String]) -> FoundWindow? {
        guard let desktop = atspi_get_desktop(0) else { return nil }
        defer { handsfree_atspi_unref(UnsafeMutableRawPointer(desktop)) }
        var error: UnsafeMutablePointer<GError>?
        let apps = atspi_accessible_get_child_count(desktop, &error)
        _ = Self.take(&error)
        let needle = wanted.map { ControlNames.normalise($0) }
        var active: FoundWindow?
        var showing: [FoundWindow] = []
        for a in 0..<max(0, min(apps, 500)) {
            guard let app = atspi_accessible_get_child_at_index(desktop, a, &error) else { _ = Self.take(&error); continue }
            defer { handsfree_atspi_unref(UnsafeMutableRawPointer(app)) }
            // A call to an application that does not answer returns, empty, after the timeout, often without
            // an error: the time it took is what tells. Such an application is named by its process.
            let started = clock.now()
            let appName = Self.name(app)
            let windows = atspi_accessible_get_child_count(app, &error)
            _ = Self.take(&error)
            if clock.now() - started > Self.slowCall {
                silent.append(appName.isEmpty ? Self.processName(app) : appName)
                continue
            }
            for w in 0..<max(0, min(windows, 200)) {
                guard let window = atspi_accessible_get_child_at_index(app, w, &error) else { _ = Self.take(&error); continue }
                let asked = clock.now()
                let title = Self.name(window)
                if clock.now() - asked > Self.slowCall {
                    silent.append(appName.isEmpty ? Self.processName(app) : appName)
                    handsfree_atspi_unref(UnsafeMutableRawPointer(window))
                    break
                }
                let states = handsfree_atspi_states(window)
                let candidate = FoundWindow(window: window, application: appName, title: title)
                var keep = false
                if let needle {
                    if active == nil, ControlNames.normalise(appName).contains(needle) || ControlNames.normalise(title).contains(needle) {
                        active = candidate; keep = true
                    }
                } else if states & Self.bit(ATSPI_STATE_ACTIVE) != 0 {
                    if let old = active { handsfree_atspi_unref(UnsafeMutableRawPointer(old.window)) }
                    active = candidate; keep = true
                } else if states & Self.bit(ATSPI_STATE_SHOWING) != 0 {
                    showing.append(candidate); keep = true
                }
                if !keep { handsfree_atspi_unref(UnsafeMutableRawPointer(window)) }
            }
        }
        if let active {
            for other in showing { handsfree_atspi_unref(UnsafeMutableRawPointer(other.window)) }
            return active
        }
        if showing.count == 1 { return showing[0] }
        for other in showing { handsfree_atspi_unref(UnsafeMutableRawPointer(other.window)) }
        return nil
    }

    // MARK: the walk

    /// A depth-first walk of one window in reading order that keeps the actionable elements. Each element is
    /// visited once (libatspi gives one object per element, so a cycle meets an element it has seen), only
    /// subtrees that show are entered, and the walk stops at the limits.
    private struct Walk {
        let deadline: Double
        var found: [(element: Element, control: DesktopControl, hasAction: Bool)] = []
        var seen = Set<Element>()
        var visited = 0
        /// The walk stopped at its limits.
        var truncated = false
        /// Some element had more children than are read; the walk went on past it.
        var cut = false
        var slow = false
        /// When the last element's reading began: one that took a call's timeout ends the walk.
        var lastStep: Double

        let clock: any ShellClock

        init(deadline: Double, clock: any ShellClock) {
            self.deadline = deadline
            self.clock = clock
            lastStep = clock.now()
        }

        mutating func run(from window: Element) {
            var stack: [(element: Element, depth: Int, owned: Bool)] = [(window, 0, false)]
            while let (element, depth, owned) = stack.popLast() {
                defer { if owned { handsfree_atspi_unref(UnsafeMutableRawPointer(element)) } }
                if truncated || slow { continue }
                visited += 1
                if visited > ControlsLimits.nodes { truncated = true; continue }
                let now = clock.now()
                if now - lastStep > AccessibilityClient.slowCall { slow = true; continue }
                if now > deadline { truncated = true; continue }
                lastStep = now
                guard seen.insert(element).inserted else { continue }
                let raw = element
                var error: UnsafeMutablePointer<GError>?
                let states = handsfree_atspi_states(raw)
                if depth > 0 && states & AccessibilityClient.bit(ATSPI_STATE_SHOWING) == 0 { continue }
                let role = atspi_accessible_get_role(raw, &error)
                if let reason = AccessibilityClient.take(&error) {
                    if AccessibilityClient.isTimeout(reason) { slow = true }
                    continue
                }
                // Whether it has actions matters only for a table cell's role and for a control's details.
                let cellActs = role == ATSPI_ROLE_TABLE_CELL && handsfree_atspi_has_action(raw) != 0
                if let kind = AccessibilityClient.map(role: role, states: states, hasAction: cellActs) {
                    found.append((handsfree_atspi_ref(UnsafeMutableRawPointer(element)).map { $0.assumingMemoryBound(to: AtspiAccessible.self) } ?? element,
                                  read(raw, role: role, kind: kind, states: states), cellActs || handsfree_atspi_has_action(raw) != 0))
                    // A field's insides (its text, a password's characters) are never read.
                    if kind.takesText { continue }
                }
                if depth >= ControlsLimits.depth { continue }
                let count = atspi_accessible_get_child_count(raw, &error)
                if let reason = AccessibilityClient.take(&error) {
                    if AccessibilityClient.isTimeout(reason) { slow = true }
                    continue
                }
                // A table or tree of thousands of rows (one that manages its descendants makes each on
                // demand): its first rows are read, and the list says it is partial.
                let most = states & AccessibilityClient.bit(ATSPI_STATE_MANAGES_DESCENDANTS) != 0
                    ? ControlsLimits.managedChildren : ControlsLimits.children
                var limit = min(Int(count), ControlsLimits.nodes)
                if limit > most {
                    cut = true
                    limit = most
                }
                // Pushed last child first, so the first child is walked first.
                for i in stride(from: limit - 1, through: 0, by: -1) {
                    guard let child = atspi_accessible_get_child_at_index(raw, Int32(i), &error) else {
                        _ = AccessibilityClient.take(&error)
                        continue
                    }
                    stack.append((child, depth + 1, true))
                }
            }
        }

        /// The toolkit's role names, read once a walk.
        var roleNames: [AtspiRole.RawValue: String] = [:]

        /// What libatspi's cache holds of a control (role, name, states): no call to the application.
        private mutating func read(_ raw: UnsafeMutablePointer<AtspiAccessible>, role: AtspiRole, kind: ControlRole,
                                   states bits: UInt64) -> DesktopControl {
            let roleName = roleNames[role.rawValue] ?? {
                let made = atspi_role_get_name(role)
                defer { g_free(made) }
                let name = made.map { ControlNames.clean(String(cString: $0), limit: 40) } ?? ""
                roleNames[role.rawValue] = name
                return name
            }()
            return DesktopControl(index: found.count, role: kind, roleName: roleName,
                                  name: AccessibilityClient.name(raw), states: AccessibilityClient.states(bits),
                                  actions: [])
        }

        /// Fills in the controls' action names and extents, every request sent before any answer is awaited,
        /// on the application's own connection where there is one (`direct`: the connection and the bus name
        /// of the application it reaches).
        mutating func readDetails(direct: (connection: OpaquePointer, application: UnsafePointer<CChar>)?) {
            guard !found.isEmpty else { return }
            var elements: [UnsafeMutablePointer<AtspiAccessible>?] = found.map { $0.element }
            let want: [Int32] = found.map { $0.hasAction ? 1 : 0 }
            var details = [handsfree_atspi_detail](repeating: handsfree_atspi_detail(), count: found.count)
            handsfree_atspi_details(&elements, want, Int32(found.count), &details, AccessibilityClient.callTimeout,
                                    direct?.connection, direct?.application)
            for i in found.indices {
                var d = details[i]
                if d.timed_out != 0 { slow = true }
                let names = withUnsafeBytes(of: &d.actions) { raw in
                    String(decoding: raw.prefix(while: { $0 != 0 }), as: UTF8.self)
                }
                found[i].control.actions = names.split(separator: "\u{1F}", omittingEmptySubsequences: true)
                    .map { ControlNames.clean(String($0), limit: 40) }
                if d.has_extents != 0 {
                    found[i].control.extents = ControlExtents(x: Int(d.x), y: Int(d.y), width: Int(d.width), height: Int(d.height))
                }
            }
        }
    }

    // MARK: helpers

    /// The connection of the application `element` belongs to, opened at its first use and kept while it
    /// stands; nil when the application offers none (it is then asked through the bus).
    private func link(for element: Element) -> (connection: OpaquePointer, application: UnsafePointer<CChar>)? {
        guard let busName = handsfree_atspi_bus_name(element) else { return nil }
        let key = String(cString: busName)
        if let known = links[key] {
            guard let open = known else { return nil }
            if handsfree_atspi_connected(open) != 0 { return (open, busName) }
            handsfree_atspi_close(open)
        }
        // A bus name is never given to another application, so a refusal is kept for as long as the bus runs.
        let made = handsfree_atspi_direct(element, Self.callTimeout)
        links[key] = .some(made)
        return made.map { ($0, busName) }
    }


    /// The element's screen extents, asked of its application now.
    static func extents(_ raw: Element) -> ControlExtents? {
        guard let component = atspi_accessible_get_component_iface(raw) else { return nil }
        defer { handsfree_atspi_unref(UnsafeMutableRawPointer(component)) }
        var error: UnsafeMutablePointer<GError>?
        guard let rect = atspi_component_get_extents(component, ATSPI_COORD_TYPE_SCREEN, &error) else {
            _ = take(&error)
            return nil
        }
        defer { g_free(rect) }
        _ = take(&error)
        return ControlExtents(x: Int(rect.pointee.x), y: Int(rect.pointee.y), width: Int(rect.pointee.width), height: Int(rect.pointee.height))
    }

    /// A call that took this long (seconds) met the timeout: its application does not answer.
    static let slowCall = Double(callTimeout) / 1000 * 0.9

    /// The name of the process behind an application (from the bus daemon and /proc, not the application,
    /// which may not answer), as "the program NAME".
    static func processName(_ app: Element) -> String {
        var error: UnsafeMutablePointer<GError>?
        let pid = atspi_accessible_get_process_id(app, &error)
        _ = take(&error)
        guard pid > 0, let comm = try? String(contentsOfFile: "/proc/\(pid)/comm", encoding: .utf8) else { return "An application" }
        return "the program " + ControlNames.clean(comm, limit: 40)
    }

    static func bit(_ state: AtspiStateType) -> UInt64 { state.rawValue < 64 ? UInt64(1) << UInt64(state.rawValue) : 0 }

    /// The role a user would call the element by, or nil when it is not a control the list shows.
    static func map(role: AtspiRole, states: UInt64, hasAction: Bool) -> ControlRole? {
        switch role {
        case ATSPI_ROLE_PUSH_BUTTON: return .button
        case ATSPI_ROLE_TOGGLE_BUTTON: return .toggle
        case ATSPI_ROLE_LINK: return .link
        case ATSPI_ROLE_MENU: return .menu
        case ATSPI_ROLE_MENU_ITEM, ATSPI_ROLE_CHECK_MENU_ITEM, ATSPI_ROLE_RADIO_MENU_ITEM: return .menuItem
        case ATSPI_ROLE_CHECK_BOX: return .checkBox
        case ATSPI_ROLE_RADIO_BUTTON: return .radioButton
        case ATSPI_ROLE_PAGE_TAB: return .tab
        case ATSPI_ROLE_COMBO_BOX: return .comboBox
        case ATSPI_ROLE_LIST_ITEM: return .listItem
        case ATSPI_ROLE_TREE_ITEM: return .treeItem
        case ATSPI_ROLE_TABLE_CELL: return hasAction ? .listItem : nil
        case ATSPI_ROLE_PASSWORD_TEXT: return .passwordField
        case ATSPI_ROLE_ENTRY, ATSPI_ROLE_SPIN_BUTTON, ATSPI_ROLE_EDITBAR: return .textField
        case ATSPI_ROLE_TEXT: return states & bit(ATSPI_STATE_EDITABLE) != 0 ? .textField : nil
        default: return nil
        }
    }

    static func states(_ bits: UInt64) -> ControlStates {
        var out: ControlStates = []
        func has(_ s: AtspiStateType) -> Bool { bits & bit(s) != 0 }
        if has(ATSPI_STATE_CHECKED) { out.insert(.checked) }
        if has(ATSPI_STATE_CHECKABLE) { out.insert(.checkable) }
        if has(ATSPI_STATE_INDETERMINATE) { out.insert(.mixed) }
        if has(ATSPI_STATE_SELECTED) { out.insert(.selected) }
        if has(ATSPI_STATE_EXPANDED) { out.insert(.expanded) }
        if has(ATSPI_STATE_FOCUSED) { out.insert(.focused) }
        if has(ATSPI_STATE_EDITABLE) { out.insert(.editable) }
        if has(ATSPI_STATE_PRESSED) { out.insert(.pressed) }
        if !has(ATSPI_STATE_SENSITIVE) && !has(ATSPI_STATE_ENABLED) { out.insert(.disabled) }
        return out
    }

    /// The element's name, cleaned; empty on any error.
    static func name(_ element: Element) -> String {
        var timedOut = false
        return name(element, timedOut: &timedOut)
    }

    /// The element's name, cleaned, noting in `timedOut` a call that got no answer in time.
    static func name(_ element: Element, timedOut: inout Bool) -> String {
        var error: UnsafeMutablePointer<GError>?
        let raw = atspi_accessible_get_name(element, &error)
        defer { g_free(raw) }
        if let reason = take(&error), isTimeout(reason) { timedOut = true }
        return raw.map { ControlNames.clean(String(cString: $0)) } ?? ""
    }

    static func actionNames(_ action: UnsafeMutablePointer<AtspiAction>) -> [String] {
        var timedOut = false
        return actionNames(action, timedOut: &timedOut)
    }

    /// The action names, noting in `timedOut` a call that got no answer in time.
    static func actionNames(_ action: UnsafeMutablePointer<AtspiAction>, timedOut: inout Bool) -> [String] {
        var error: UnsafeMutablePointer<GError>?
        let count = atspi_action_get_n_actions(action, &error)
        if let reason = take(&error) {
            if isTimeout(reason) { timedOut = true }
            return []
        }
        var names: [String] = []
        for i in 0..<max(0, min(count, 16)) {
            let raw = atspi_action_get_action_name(action, i, &error)
            _ = take(&error)
            names.append(raw.map { ControlNames.clean(String(cString: $0), limit: 40) } ?? "")
            g_free(raw)
        }
        return names
    }

    /// The action a gaze + jaw or "click NAME" means: the first of the usual default names, else the first.
    static func defaultAction(_ names: [String]) -> Int? {
        for wanted in ["click", "press", "activate", "jump", "toggle", "check", "uncheck", "open", "select", "switch"] {
            if let i = names.firstIndex(of: wanted) { return i }
        }
        return names.isEmpty ? nil : 0
    }

    /// Whether a call's error says the application did not answer in time (D-Bus's "Did not receive a
    /// reply", libatspi's "appears to be hung").
    static func isTimeout(_ reason: String) -> Bool {
        reason.contains("receive a reply") || reason.contains("hung") || reason.contains("imeout")
    }

    /// A GError's message (cleaned), and frees it; nil when there was none.
    static func take(_ error: inout UnsafeMutablePointer<GError>?) -> String? {
        guard let e = error else { return nil }
        let message = e.pointee.message.map { ControlNames.clean(String(cString: $0), limit: 200) } ?? "unknown error"
        g_clear_error(&error)
        return message
    }

    /// The control a message is about: its name in quotes, as the list shows it, or for one without a name
    /// "The control" in the language (its role's English name would be the only English in the sentence).
    static func describe(_ target: ControlTarget) -> UIMessage {
        target.name.isEmpty ? UIMessage("The control") : .verbatim("\"\(target.name)\"")
    }
}
