import Localization
import Runtime

/// A command-line message in the language of this run (`CommandLineText.catalog`: `--language`, else the
/// setting and the environment), its `{name}` placeholders filled from `arguments`. A literal given here is
/// extracted for translators as a screen's is (`scripts/extract-messages.py`).
func tr(_ msgid: String, _ arguments: [String: String] = [:], context: String? = nil) -> String {
    CommandLineText.catalog.tr(msgid, arguments, context: context)
}

/// The form of `singular`/`plural` that `n` takes in the language of this run (`{n}` filled with `n`).
func trn(_ singular: String, _ plural: String, _ n: Int, _ arguments: [String: String] = [:], context: String? = nil) -> String {
    CommandLineText.catalog.trn(singular, plural, n, arguments, context: context)
}

extension UIMessage {
    /// The message in the language of this run's command-line messages.
    var shown: String { text(CommandLineText.catalog) }
}
