/// A route for an app that is not built yet: it says so and can lead to its sub-screen.
///
/// The apps engineer replaces each of these in `ScreenRegistry.standard` with the real screen.
public struct PlaceholderScreen: Screen {
    public let name: String
    public let title: String
    public var blurb: String
    /// A tile that opens another screen: (label, screen name).
    public var link: (label: String, screen: String)?

    public init(name: String, title: String, blurb: String, link: (label: String, screen: String)? = nil) {
        self.name = name; self.title = title; self.blurb = blurb; self.link = link
    }

    public static let notes = PlaceholderScreen(name: "notes", title: "Notes", blurb: "Your notes will be listed here.",
                                                link: ("Open a note", "note-editor"))
    public static let noteEditor = PlaceholderScreen(name: "note-editor", title: "Note",
                                                     blurb: "The note editor: dictation, word suggestions and a letter keyboard.")
    public static let messages = PlaceholderScreen(name: "messages", title: "Messages",
                                                   blurb: "Your contacts will be listed here.",
                                                   link: ("Open a conversation", "conversation"))
    public static let conversation = PlaceholderScreen(name: "conversation", title: "Conversation",
                                                       blurb: "A conversation and a compose field.")
    public static let settings = PlaceholderScreen(name: "settings", title: "Settings",
                                                   blurb: "Gaze cursor, thresholds, dwell time, smoothing and keymap.")
    public static let media = PlaceholderScreen(name: "media", title: "Media",
                                                blurb: "Tracks, albums and playback controls.")

    public func render(_ c: inout Canvas, _ ctx: ScreenContext) {
        let b = c.bounds
        c.grid.centered(title, in: b, y: b.y + 1, style: Theme.tileLabel)
        c.grid.centered(blurb, in: b, y: b.y + 3, style: .plain)
        c.grid.centered("(coming soon)", in: b, y: b.y + 4, style: Theme.hint)
        if let link {
            c.tile(name + ".open", link.label, Rect(x: b.x + (b.w - 30) / 2, y: b.y + 7, w: 30, h: 7))
        }
    }

    public mutating func handle(_ input: ScreenInput, _ ctx: ScreenContext) -> Reply {
        guard case .action(.activate, let t?, _) = input, let link, t.id == name + ".open" else { return .unhandled }
        return .open(link.screen)
    }
}
