/// A message to show, kept untranslated until it is drawn: its msgid and arguments, translated by the
/// catalog the state holds at each drawing, so a language switch re-labels a notice already on the screen.
///
/// What the edge (the runtime) and the reducer say to the user (a notice, a problem) is made as a value of
/// this type, never as text in one language. `scripts/extract-messages.py` finds `UIMessage("…")` and
/// `.plural("…", "…", n)` as it finds `tr("…")`.
public struct UIMessage: Sendable, Hashable, Codable, CustomStringConvertible {
    enum Kind: Sendable, Hashable, Codable {
        case text(String)
        case plural(String, String, Int)
        /// Text that is not the project's to translate: a path, a program's own error, a name.
        case verbatim(String)
        /// Whole messages shown side by side (each a sentence or clause of its own), `separator` between them.
        case together([UIMessage], separator: String)
        /// A text of the system's own (`strerror`'s words), shown in the system's translation when the catalog
        /// holds it (`Catalog.systemText`).
        case system(String)
    }

    let kind: Kind
    /// Values for the message's `{name}` placeholders (arguments are shown as they are: paths, numbers,
    /// errors from the system).
    public let arguments: [String: String]
    /// The `msgctxt` telling this use of the English text from another.
    public let context: String?
    /// Placeholders filled with messages of their own (a reason inside a sentence: "cannot open {file}:
    /// {reason}"), each translated with the message.
    public let reasons: [String: UIMessage]

    /// A message translated by its msgid, `{name}` placeholders filled from `arguments`, and from `reasons`
    /// translated in the same language.
    public init(_ msgid: String, _ arguments: [String: String] = [:], reasons: [String: UIMessage] = [:], context: String? = nil) {
        kind = .text(msgid); self.arguments = arguments; self.reasons = reasons; self.context = context
    }

    init(kind: Kind, arguments: [String: String], reasons: [String: UIMessage] = [:], context: String?) {
        self.kind = kind; self.arguments = arguments; self.reasons = reasons; self.context = context
    }

    /// A message with plural forms for the number `n` (`{n}` in them is filled with it).
    public static func plural(_ singular: String, _ plural: String, _ n: Int, _ arguments: [String: String] = [:],
                              reasons: [String: UIMessage] = [:], context: String? = nil) -> UIMessage {
        UIMessage(kind: .plural(singular, plural, n), arguments: arguments, reasons: reasons, context: context)
    }

    /// A text of the system's own (`strerror(errno)`, ALSA's words for a system error), shown in the system's
    /// own translation for the language (glibc's catalog), or as it is when there is none.
    public static func system(_ english: String) -> UIMessage {
        UIMessage(kind: .system(english), arguments: [:], context: nil)
    }

    /// Text shown as it is in every language (a program's own message, a file name): what a message that has
    /// not been made translatable yet is, too.
    public static func verbatim(_ text: String) -> UIMessage {
        UIMessage(kind: .verbatim(text), arguments: [:], context: nil)
    }

    /// Two or more whole messages shown as one notice, each translated on its own, " · " between them (never
    /// pieces of one sentence: each is a sentence a translator sees whole).
    public static func together(_ messages: [UIMessage], separator: String = " · ") -> UIMessage {
        messages.count == 1 ? messages[0] : UIMessage(kind: .together(messages, separator: separator), arguments: [:], context: nil)
    }

    /// The message in `catalog`'s language.
    public func text(_ catalog: Catalog) -> String {
        var filled = arguments
        for (name, reason) in reasons { filled[name] = reason.text(catalog) }
        return switch kind {
        case .text(let id): catalog.tr(id, filled, context: context)
        case .plural(let one, let many, let n): catalog.trn(one, many, n, filled, context: context)
        case .verbatim(let t): t
        case .together(let parts, let separator): parts.map { $0.text(catalog) }.joined(separator: separator)
        case .system(let t): catalog.systemText(t)
        }
    }

    /// The message in English.
    public var english: String { text(.english) }

    /// The same message with each argument (here and in its reasons) changed by `f`: what a message quotes
    /// from a file, made safe to print.
    public func mappingArguments(_ f: (String) -> String) -> UIMessage {
        let kind: Kind = switch self.kind {
        case .together(let parts, let separator): .together(parts.map { $0.mappingArguments(f) }, separator: separator)
        default: self.kind
        }
        return UIMessage(kind: kind, arguments: arguments.mapValues(f), reasons: reasons.mapValues { $0.mappingArguments(f) }, context: context)
    }

    /// Whether it is translated when drawn (false for `verbatim`).
    public var isTranslatable: Bool {
        switch kind {
        case .verbatim: false
        case .together(let parts, _): parts.allSatisfy(\.isTranslatable)
        default: true
        }
    }

    public var description: String { english }
}

/// Marks a string for translation without translating it: for a table of labels (`[("notes", N_("Notes"))]`)
/// translated where it is drawn (`ctx.tr(label)`). `scripts/extract-messages.py` puts it in the catalog.
@inline(__always)
public func N_(_ msgid: String) -> String { msgid }
