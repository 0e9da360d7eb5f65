// Speech's pure parts (dictation editing, spoken numbers, the command grammar) live in SpeechText, which the
// Shell imports too; code that imports Speech sees them as before.
@_exported import SpeechText
