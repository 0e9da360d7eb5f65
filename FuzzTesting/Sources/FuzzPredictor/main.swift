import FuzzDriver
import Prediction

// The predictor on arbitrary text: what the user typed so far, then learning it as committed text.
// A tiny built-in word list keeps each run fast.
enum Words {
    static let list: [(String, Double)] = [
    ("the", 1000), ("they", 300), ("then", 250), ("there", 200), ("hello", 50), ("help", 80), ("café", 5),
    ("don't", 40), ("über", 3), ("a", 900), ("I", 700), ("naïve", 2), ("x", 1),
    ]
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzPredictor(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let text = FuzzDriver.text(data, size)
    var p = WordPredictor(words: Words.list)
    _ = p.suggest(text, limit: 4)
    p.learn(text)
    _ = p.suggest(text, limit: 4)
    _ = p.addWord(text)
    p.removeWord(text)
    _ = p.suggest(String(text.prefix(8)), limit: 8)
    return 0
}

runFuzzer(fuzzPredictor)
