/// Rewrites a child's output so that libvterm 0.1.4 (Debian 12's) can take any of it.
///
/// That version writes out of bounds, crashes or loops forever on byte streams any program can print (found
/// by fuzzing it built with AddressSanitizer, and one of them crashed a CI run). Where libvterm does not
/// fail, the rewritten stream shows what the original would:
///
/// - **UTF-8.** An ill-formed sequence cut short by a control or a character leaves libvterm's decoder
///   pending, and the next text then writes one code point past its stack buffer. U+0080…U+009F have width
///   -1 there, which walks the cursor left off the screen and writes before it. Both become U+FFFD, which
///   libvterm shows for ill-formed input anyway (so do overlong forms, surrogates and code points past
///   U+10FFFF). A sequence cut by the end of a read waits for the next read; NUL or DEL inside one is
///   dropped.
/// - **REP** (`CSI n b`) repeats the last character by adding its width to the column: it loops forever
///   when that width is 0 (nothing printed since the start, or a lone combining mark), and writes past the
///   row when it is 2. A REP not right after a character surely of width 1 is cancelled (its final byte
///   becomes CAN), as xterm and tmux ignore a REP after anything but a printed character.
/// - **CSI parameters.** A 17th parameter is written past libvterm's array of 16, over its callbacks, which
///   crashes at the next call. Parameters after the 16th are dropped.
/// - **ST cut after its ESC.** A string's terminator `ESC \` whose `\` starts a read, or with a control or
///   NUL between the two bytes, makes libvterm copy from before its buffer. An ESC therefore waits for the
///   byte that follows it; controls (and NUL, DEL) that come first go ahead of it, which changes nothing
///   else: they act the same inside an escape as outside.
///
/// The parse follows libvterm's own (parser.c) byte for byte: controls act inside sequences and strings,
/// CAN and SUB abandon them, ESC starts another, and a string (OSC, DCS) ends at BEL or `ESC \`.
struct VTermInputGuard {
    private enum Parse { case ground, escape, csiLeader, csiArgs, csiIntermediate, string }
    private var parse = Parse.ground
    /// The parse was in a string when the pending ESC came (the ESC may start its terminator).
    private var escapeInString = false
    /// An ESC not passed on yet, waiting for the byte after it: its index in the current input, -1 if it
    /// came at the end of the last one (then it is not in this input and is put back before that byte).
    private var escapeAt: Int?
    /// Controls came between the pending ESC and now: the ESC moves to just before the next byte.
    private var controlsAfterEscape = false
    /// A CSI's separators so far (`;` or `:`), its leader or intermediates, and whether its later parameters
    /// are being dropped.
    private var separators = 0
    private var csiMarked = false
    private var csiQuestion = false
    private var escapeIntermediates = false
    private var droppingParameters = false
    /// What came last is a printed character of width 1 (or a REP of one), which a REP may repeat. libvterm
    /// would repeat the last character printed whatever came since; xterm and tmux repeat only one right
    /// before, and so does this (ncurses sends the character and then the REP).
    private var printed = false

    /// A UTF-8 sequence being read: its bytes still to come, its code point so far, its length, where it
    /// part in the current input starts (its bytes before that, from an earlier input or before a NUL, are
    /// `carried`, not in the output yet).
    private var need = 0
    private var codePoint: UInt32 = 0
    private var total = 0
    private var sequenceStart = 0
    private var carried: [UInt8] = []

    /// The rewritten bytes, made only once something changes; `copied` is how far into the input they go.
    private var out: [UInt8] = []
    private var rewriting = false
    private var copied = 0

    /// Offsets in the last output just after a sequence that restores a saved cursor (DECRC, `CSI ? 1048 l`,
    /// `CSI ? 1049 l`). libvterm restores it unchecked, and a cursor saved before the screen got smaller is
    /// off it: the caller checks the cursor at each of these before feeding on.
    private var cursorRestores: [Int] = []

    /// Bytes held back from the end of the last input (an ESC, or the start of a UTF-8 sequence).
    var heldBytes: Int { (escapeAt == -1 ? 1 : 0) + (need > 0 ? carried.count : 0) }

    /// Passes `input` through the guard and calls `body` with the bytes to feed libvterm (the input itself
    /// when nothing had to change, the usual case, or a rewritten copy) and `cursorRestores`.
    mutating func filter<R>(_ input: UnsafeBufferPointer<UInt8>, _ body: (UnsafeBufferPointer<UInt8>, [Int]) -> R) -> R {
        rewriting = false
        copied = 0
        cursorRestores.removeAll(keepingCapacity: true)
        let n = input.count
        guard let p = input.baseAddress, n > 0 else { return body(input, []) }
        var i = 0
        while i < n {
            // The hot path: a run of printable ASCII on the ground with nothing pending passes as it is, and
            // so do CR and LF between its lines, which there only end a run of printed text (`step`'s default).
            if parse == .ground && need == 0 && escapeAt == nil {
                let start = i
                while i < n {
                    let b = p[i]
                    guard b >= 0x20 && b < 0x7f || b == 0x0a || b == 0x0d else { break }
                    i += 1
                }
                if i > start { printed = p[i - 1] >= 0x20 }
                if i == n { break }
            }
            step(p, i)
            i += 1
        }
        // What waits for the next input is cut off the end (a UTF-8 sequence's start; an ESC, with the
        // controls after it passed on).
        var end = n
        if need > 0 {
            carried.append(contentsOf: UnsafeBufferPointer(start: p + sequenceStart, count: n - sequenceStart))
            end = sequenceStart
            sequenceStart = 0
        }
        // (No sequence can be open with it: the ESC ended any.)
        if let at = escapeAt, at >= 0 {
            if controlsAfterEscape {
                edit(p, from: at, to: at + 1, [])
            } else {
                end = at
            }
            escapeAt = -1
        }
        if rewriting {
            if end > copied { out.append(contentsOf: UnsafeBufferPointer(start: p + copied, count: end - copied)) }
            return out.withUnsafeBufferPointer { body($0, cursorRestores) }
        }
        return body(UnsafeBufferPointer(start: p, count: end), cursorRestores)
    }

    /// Forgets an escape sequence or string left open by the last input, which the caller ends in libvterm
    /// with CAN; returns whether one was.
    mutating func abandonSequence() -> Bool {
        let open = parse != .ground || escapeAt != nil
        parse = .ground
        escapeAt = nil
        controlsAfterEscape = false
        escapeInString = false
        return open
    }

    /// Replaces input bytes `from..<to` with `bytes` in the output (an insertion when the range is empty).
    private mutating func edit(_ p: UnsafePointer<UInt8>, from: Int, to: Int, _ bytes: [UInt8]) {
        if !rewriting {
            out.removeAll(keepingCapacity: true)
            rewriting = true
        }
        if from > copied { out.append(contentsOf: UnsafeBufferPointer(start: p + copied, count: from - copied)) }
        out.append(contentsOf: bytes)
        copied = max(copied, to)
    }

    /// Where the output stands just after input byte `i` (edits so far included).
    private func outputOffset(after i: Int) -> Int {
        rewriting ? out.count + (i + 1 - copied) : i + 1
    }

    private static let replacement: [UInt8] = [0xef, 0xbf, 0xbd]

    private mutating func step(_ p: UnsafePointer<UInt8>, _ i: Int) {
        let b = p[i]
        // NUL and DEL are ignored by libvterm wherever they come, but they end a run of text: inside a UTF-8
        // sequence they are dropped, as the text after them may go to another of libvterm's decoders (one per
        // character set, and one for text that starts with a byte from 0x80), leaving this one pending.
        if b == 0x00 || b == 0x7f {
            if need > 0 {
                // The sequence's bytes so far leave the output with the NUL and come back when it is whole.
                carried.append(contentsOf: UnsafeBufferPointer(start: p + sequenceStart, count: i - sequenceStart))
                edit(p, from: sequenceStart, to: i + 1, [])
                sequenceStart = i + 1
            }
            if escapeAt != nil { controlsAfterEscape = true }
            return
        }
        if b < 0x20 {
            endSequence(p, at: i)
            switch b {
            case 0x18, 0x1a:
                // CAN, SUB: whatever was open is abandoned, a pending ESC with it.
                passPendingEscape(p, before: i)
                parse = .ground
                printed = false
            case 0x1b:
                passPendingEscape(p, before: i)
                escapeInString = parse == .string
                parse = .escape
                escapeAt = i
                controlsAfterEscape = false
                escapeIntermediates = false
            case 0x07 where parse == .string && escapeAt == nil:
                parse = .ground
            default:
                if escapeAt != nil { controlsAfterEscape = true }
                printed = false
            }
            return
        }
        if escapeAt != nil {
            passPendingEscape(p, before: i)
            if escapeInString {
                escapeInString = false
                if b == 0x5c { parse = .ground; return }   // ST
            }
        }
        switch parse {
        case .ground:
            text(p, i)
        case .string:
            break
        case .escape:
            switch b {
            case 0x5b:
                parse = .csiLeader
                separators = 0
                csiMarked = false
                csiQuestion = false
                droppingParameters = false
            case 0x5d, 0x50: parse = .string; printed = false   // OSC, DCS
            case 0x20...0x2f: escapeIntermediates = true
            case 0x30...0x7e:
                if b == 0x38 && !escapeIntermediates { cursorRestores.append(outputOffset(after: i)) }   // DECRC
                parse = .ground
                printed = false
            default: break   // from 0x80: libvterm stays in the escape
            }
        case .csiLeader, .csiArgs, .csiIntermediate:
            csi(p, i)
        }
    }

    /// A byte after `ESC [`, as libvterm's CSI states take it.
    private mutating func csi(_ p: UnsafePointer<UInt8>, _ i: Int) {
        let b = p[i]
        if parse == .csiLeader {
            if b >= 0x3c && b <= 0x3f { csiMarked = true; csiQuestion = csiQuestion || b == 0x3f; return }
            parse = .csiArgs
        }
        if parse == .csiArgs {
            if b >= 0x30 && b <= 0x39 {
                if droppingParameters { edit(p, from: i, to: i + 1, []) }
                return
            }
            if b == 0x3a || b == 0x3b {
                separators += 1
                if separators >= 16 { droppingParameters = true }
                if droppingParameters { edit(p, from: i, to: i + 1, []) }
                return
            }
            parse = .csiIntermediate
        }
        if b >= 0x20 && b <= 0x2f { csiMarked = true; return }
        let repeats = b == 0x62 && !csiMarked
        if repeats && !printed {
            // REP with nothing safe to repeat: CAN ends the sequence instead.
            edit(p, from: i, to: i + 1, [0x18])
        }
        if !repeats { printed = false }
        // Any DEC mode reset may be 1048 or 1049, which restore the saved cursor.
        if b == 0x6c && csiQuestion { cursorRestores.append(outputOffset(after: i)) }
        // A final byte runs the sequence; anything else makes it invalid. Either way it is over.
        parse = .ground
    }

    /// An ESC waiting for the byte after it is passed on: where it was if nothing came between, else moved
    /// to just before byte `i`.
    private mutating func passPendingEscape(_ p: UnsafePointer<UInt8>, before i: Int) {
        guard let at = escapeAt else { return }
        if at < 0 {
            edit(p, from: i, to: i, [0x1b])
        } else if controlsAfterEscape {
            edit(p, from: at, to: at + 1, [])
            edit(p, from: i, to: i, [0x1b])
        }
        escapeAt = nil
        controlsAfterEscape = false
    }

    /// A byte of text on the ground: printable ASCII, or part of a UTF-8 sequence.
    private mutating func text(_ p: UnsafePointer<UInt8>, _ i: Int) {
        let b = p[i]
        if b < 0x80 {
            endSequence(p, at: i)
            printed = true
            return
        }
        if b < 0xc0 {
            guard need > 0 else {
                // A continuation byte with no sequence open: libvterm shows U+FFFD for it.
                edit(p, from: i, to: i + 1, Self.replacement)
                printed = true
                return
            }
            codePoint = codePoint << 6 | UInt32(b & 0x3f)
            need -= 1
            if need == 0 { completeSequence(p, at: i) }
            return
        }
        endSequence(p, at: i)
        switch b {
        case 0xc0...0xdf: codePoint = UInt32(b & 0x1f); total = 2
        case 0xe0...0xef: codePoint = UInt32(b & 0x0f); total = 3
        case 0xf0...0xf7: codePoint = UInt32(b & 0x07); total = 4
        case 0xf8...0xfb: codePoint = UInt32(b & 0x03); total = 5
        case 0xfc...0xfd: codePoint = UInt32(b & 0x01); total = 6
        default:
            edit(p, from: i, to: i + 1, Self.replacement)
            printed = true
            return
        }
        need = total - 1
        sequenceStart = i
        carried.removeAll(keepingCapacity: true)
    }

    /// A sequence's last byte came at `i`: passed on if it is a character libvterm takes, else U+FFFD.
    private mutating func completeSequence(_ p: UnsafePointer<UInt8>, at i: Int) {
        let c = codePoint
        let overlong = c < [0, 0, 0x80, 0x800, 0x10000, 0x20_0000, 0x400_0000][total]
        let valid = !overlong && c <= 0x10_ffff && !(0xd800...0xdfff).contains(c) && c != 0xfffe && c != 0xffff
            && !(0x80...0x9f).contains(c)
        if !valid {
            edit(p, from: sequenceStart, to: i + 1, Self.replacement)
            printed = true
        } else {
            if !carried.isEmpty { edit(p, from: sequenceStart, to: sequenceStart, carried) }
            // A mark after a character is joined to it only if the cursor has not moved on; at the right edge
            // it has, and the mark becomes a character of width 0. So no REP is let through after a mark.
            printed = Self.hasWidthOne(c)
        }
        carried.removeAll(keepingCapacity: true)
        sequenceStart = 0
    }

    /// A sequence still open when byte `i` (not one of its own) comes is cut short: U+FFFD in its place.
    private mutating func endSequence(_ p: UnsafePointer<UInt8>, at i: Int) {
        guard need > 0 else { return }
        edit(p, from: sequenceStart, to: i, Self.replacement)
        need = 0
        carried.removeAll(keepingCapacity: true)
        sequenceStart = 0
        printed = true
    }

    /// Whether libvterm surely gives `c` a width of 1, so that a REP after it ends inside the screen.
    ///
    /// libvterm's zero widths are the non-spacing, enclosing and format characters of its Unicode 5 table;
    /// its double widths start at U+1100 (and a REP of one at the right edge writes its second half past
    /// the row). So: letters, numbers, punctuation, symbols and spaces below U+1100, and box drawing, blocks
    /// and geometric shapes (U+2500…U+25FC), which full-screen programs repeat.
    static func hasWidthOne(_ c: UInt32) -> Bool {
        guard c < 0x1100 || (0x2500...0x25fc).contains(c), c != 0xad, let s = Unicode.Scalar(c) else { return false }
        switch s.properties.generalCategory {
        case .uppercaseLetter, .lowercaseLetter, .titlecaseLetter, .modifierLetter, .otherLetter,
             .decimalNumber, .letterNumber, .otherNumber,
             .connectorPunctuation, .dashPunctuation, .openPunctuation, .closePunctuation,
             .initialPunctuation, .finalPunctuation, .otherPunctuation,
             .mathSymbol, .currencySymbol, .modifierSymbol, .otherSymbol, .spaceSeparator:
            return true
        default:
            return false
        }
    }
}
