import Config
import Localization

/// Practice music, simulated: a carousel of made-up albums, the album's tracks in a scrollable list,
/// play/pause/next and a progress bar that advances with source time. No audio is played, and the title,
/// the screen and its help say so.
public struct MediaScreen: Screen {
    public let name = "media"
    public let title = N_("Practice music")
    public var albums = Carousel()
    var tracks = ScrollList(rowHeight: 3)
    /// The track playing or paused: album and track index.
    public var current: (album: Int, track: Int) = (0, 0)
    public var playing = false
    /// Seconds into the current track.
    public var position = 0.0
    var lastTick: Double?

    public init() {}

    public struct Album: Sendable {
        public var title: String
        public var artist: String
        public var tracks: [(title: String, seconds: Double)]
    }

    public static let library: [Album] = [
        Album(title: "Morning Light", artist: "The Quiet Hours", tracks: [
            ("Sunrise over the bay", 214), ("Coffee steam", 187), ("First bus", 242), ("Open windows", 199),
            ("Birdsong loop", 171), ("Long shadows", 256), ("Half past eight", 203), ("Slow walk home", 228),
            ("Paper boats", 190), ("Noon", 265)]),
        Album(title: "Night Drive", artist: "Neon Harbour", tracks: [
            ("Tunnel lights", 233), ("Overpass", 201), ("Rain on glass", 248), ("Last exit", 219),
            ("Radio static", 176), ("Dashboard glow", 262), ("Empty lanes", 207)]),
        Album(title: "Field Recordings", artist: "Ana Moreno", tracks: [
            ("Wind in the pines", 301), ("River stones", 284), ("Evening crickets", 266), ("Harbour bells", 198),
            ("Market square", 240), ("Thunder far away", 312)]),
        Album(title: "Piano Sketches", artist: "L. Okafor", tracks: [
            ("Etude in grey", 156), ("Small hours", 183), ("Letters", 171), ("Window seat", 199),
            ("Lullaby for B.", 164), ("Snowfall", 208), ("Old house", 177), ("Goodbye, summer", 221)]),
        Album(title: "Kitchen Radio", artist: "Various", tracks: [
            ("Saturday shuffle", 195), ("Two-step", 188), ("Lemon tree", 201), ("Dance, slowly", 230),
            ("Sing along", 176)]),
    ]

    struct Layout { var tracks: Rect; var carousel: Rect; var play: Rect; var prev: Rect; var next: Rect; var nowPlaying: Int; var progress: Rect }

    func layout(_ b: Rect) -> Layout {
        let lw = (b.w - 6) * 45 / 100
        let tracks = Rect(x: b.x + 2, y: b.y + 1, w: lw, h: b.h - 1)
        let rx = tracks.maxX + 2, rw = b.maxX - 2 - rx
        let carousel = Rect(x: rx, y: b.y + 1, w: rw, h: min(12, b.h - 10))
        let buttons = Rect(x: rx, y: carousel.maxY + 1, w: rw, h: 3).columns(3, gap: 1)
        return Layout(tracks: tracks, carousel: carousel, play: buttons[1], prev: buttons[0], next: buttons[2],
                      nowPlaying: buttons[0].maxY + 1, progress: Rect(x: rx, y: buttons[0].maxY + 2, w: rw, h: 1))
    }

    static func time(_ s: Double) -> String {
        let t = max(0, Int(s))
        return "\(t / 60):" + (t % 60 < 10 ? "0" : "") + "\(t % 60)"
    }

    public func render(_ c: inout Canvas, _ ctx: ScreenContext) {
        let l = layout(c.bounds)
        let album = Self.library[albums.index]
        let rows = album.tracks.enumerated().map { i, t in
            let on = current.album == albums.index && current.track == i
            return ListRow(id: "media.track.\(i)", (on ? (playing ? "▶ " : "❚❚ ") : "\(i + 1). ") + t.title,
                           detail: Self.time(t.seconds))
        }
        c.text(ctx.tr("Tracks of {album}", ["album": album.title]), x: l.tracks.x, y: l.tracks.y - 1, style: Theme.hint)
        c.scrollList("media.tracks", rows, tracks, l.tracks)
        c.text(ctx.tr("Made-up albums, no sound: practice"), x: l.carousel.x, y: l.carousel.y - 1, style: Theme.warning,
               maxWidth: l.carousel.w)
        c.carousel("media.albums", Self.library.map { ($0.title, $0.artist + " · " + ctx.trn("{n} track", "{n} tracks", $0.tracks.count)) }, albums, l.carousel)
        c.button("media.prev", ctx.tr("⏮ Previous"), l.prev)
        c.button("media.play", playing ? ctx.tr("❚❚ Pause") : ctx.tr("▶ Play"), l.play)
        c.button("media.next", ctx.tr("⏭ Next"), l.next)
        let t = Self.library[current.album].tracks[current.track]
        c.text(ctx.tr(playing ? N_("Playing: {track} — {artist}") : N_("Paused: {track} — {artist}"),
                      ["track": t.title, "artist": Self.library[current.album].artist]),
               x: l.progress.x, y: l.nowPlaying, style: Theme.tileLabel, maxWidth: l.progress.w)
        c.progressBar(Self.time(position) + " / " + Self.time(t.seconds), fraction: position / t.seconds, l.progress)
        // Said again below where it fits whole (a sentence cut short would mislead).
        let note = ctx.tr("Practice: these albums are made up and no sound plays. It is a place to try the carousel, lists and buttons.")
        let room = Rect(x: l.progress.x, y: l.progress.y + 2, w: l.progress.w, h: max(0, c.bounds.maxY - l.progress.y - 2))
        if Canvas.wrap(note, width: room.w).count <= room.h { c.paragraph(note, room, style: Theme.warning) }
    }

    mutating func skip(by d: Int) {
        let n = Self.library[current.album].tracks.count
        current.track = ((current.track + d) % n + n) % n
        position = 0
    }

    public mutating func handle(_ input: ScreenInput, _ ctx: ScreenContext) -> Reply {
        let l = layout(ctx.bounds)
        let album = Self.library[albums.index]
        if case .tick(let now) = input {
            defer { lastTick = now }
            guard playing, let last = lastTick else { return .unhandled }
            let before = Int(position)
            position += max(0, now - last)
            if position >= Self.library[current.album].tracks[current.track].seconds { skip(by: 1) }
            // Redraw only when the shown second changes: idle frames stay cheap.
            return Int(position) != before ? .handled : .unhandled
        }
        let albumBefore = albums.index
        if albums.handle(input, id: "media.albums", count: Self.library.count) {
            if albums.index != albumBefore { tracks.offset = 0 }
            return Reply(record: "album")
        }
        if tracks.handle(input, id: "media.tracks", count: album.tracks.count, in: l.tracks) { return Reply(record: "scroll") }
        switch input {
        case .action(.activate, let t?, _):
            switch t.id {
            case "media.play": playing.toggle(); return Reply(record: playing ? "play" : "pause")
            case "media.next": skip(by: 1); return Reply(record: "next-track")
            case "media.prev": skip(by: -1); return Reply(record: "previous-track")
            case "media.albums": current = (albums.index, 0); position = 0; playing = true; return Reply(record: "play")
            default:
                guard t.id.hasPrefix("media.track."), let i = Int(t.id.dropFirst("media.track.".count)) else { return .unhandled }
                current = (albums.index, i); position = 0; playing = true
                return Reply(record: "play")
            }
        case .action(.help, _, _):
            return .push(AppHelpScreen(app: name, appTitle: title))
        default:
            return .unhandled
        }
    }
}
