import Foundation
import TrackingCore

/// Frames from the VMC protocol (OSC over UDP, port 39539): `/VMC/Ext/Blend/Val name value` sets a shape,
/// `/VMC/Ext/Blend/Apply` ends a frame, `/VMC/Ext/Bone/Pos "Head" px py pz qx qy qz qw` gives the head.
///
/// Values persist between frames as the protocol defines. Shape names may be ARKit's (`JawOpen`, `jawOpen`)
/// or VRM's (`Blink_L`, `A`, VRM 1.0 `blinkLeft`, `aa`). VMC carries no time, so frames take the time the
/// datagram arrived, given by the caller.
public struct VMCDecoder: Sendable {
    public static let defaultPort: UInt16 = 39539
    /// The values so far, in ``BlendShape`` order (a plain array of this module: no call per value). Never
    /// shared: each frame gets its own copy.
    var values = BlendShapes.restValues
    var head: HeadPose?
    /// The shape the last value set: senders list shapes in the same order every frame, so the next name is
    /// looked for after it first.
    var lastShape = -1
    /// Off in tests only, to compare the fast path for values with the general reader on the same input.
    var useFastPath = true
    /// The blend-shape names, held here rather than looked up for every value.
    private let names = BlendNames.table
    private let keys = VMCKeys.table

    public init() {}

    /// Decodes one datagram that arrived at `arrival` seconds; an Apply inside it yields a frame.
    ///
    /// The packet is read in place (`OSC.walk`), so the usual bundle of values and an Apply allocates only
    /// its result. A packet that is not OSC changes nothing, not even the values before the damage: they are
    /// written to a copy on the stack, kept only when the whole packet was read.
    public mutating func decode(_ d: UnsafeRawBufferPointer, index: Int, arrival: Double) -> [DecodedItem] {
        withUnsafeTemporaryAllocation(of: Float.self, capacity: BlendShape.count) { stage in
            values.withUnsafeBufferPointer { _ = stage.initialize(fromContentsOf: $0) }
            var next = Staged(values: stage, head: head, lastShape: lastShape, useFastPath: useFastPath, names: names,
                              keys: keys)
            let out = next.decode(d, index: index, arrival: arrival)
            if next.complete {
                values.withUnsafeMutableBufferPointer { _ = $0.update(fromContentsOf: stage) }
                head = next.head
                lastShape = next.lastShape
            }
            return out
        }
    }

    /// The decoder's state while one datagram is read, its values in a buffer the caller owns.
    ///
    /// A separate value with no closures capturing it, so that writing a value is a store: through the
    /// decoder copied into a closure's context, each one checked exclusive access and the array's uniqueness.
    private struct Staged {
        let values: UnsafeMutableBufferPointer<Float>
        var head: HeadPose?
        var lastShape: Int
        let useFastPath: Bool
        let names: BlendNames
        let keys: [VMCKeys.Key]
        /// False when the packet was refused: nothing it set may be kept.
        var complete = false

        mutating func decode(_ d: UnsafeRawBufferPointer, index: Int, arrival: Double) -> [DecodedItem] {
            let pos = SourcePosition(.packet, index)
            var out: [DecodedItem] = []
            var messages = 0, unknown = 0
            var first: String?
            do throws(OSC.OSCError) {
                // The usual packet, one bundle of values and an Apply, is walked here so that each value goes
                // straight to `fastValue`; anything else, and any element it does not take, goes through
                // `OSC.walk`, which checks it as it would have inside the bundle.
                if useFastPath, d.count >= 16, d.count % 4 == 0, OSC.isBundle(d) {
                    var k = 16
                    while k < d.count {
                        guard d.count - k >= 4 else { throw OSC.OSCError(message: "bundle element size cut short") }
                        let size = Int(UInt32(bigEndian: d.loadUnaligned(fromByteOffset: k, as: UInt32.self)))
                        k += 4
                        guard size <= d.count - k else {
                            throw OSC.OSCError(message: "bundle element of \(size) bytes runs past the packet's end")
                        }
                        let e = UnsafeRawBufferPointer(rebasing: d[k..<(k + size)])
                        if fastValue(e) {
                            messages += 1
                        } else {
                            try general(e, depth: 1, pos, arrival, &out, &messages, &unknown, &first)
                        }
                        k += size
                    }
                } else {
                    try general(d, depth: 0, pos, arrival, &out, &messages, &unknown, &first)
                }
            } catch {
                return [.malformed(FrameIssue(pos, error.message))]
            }
            complete = true
            if out.isEmpty, unknown > 0, unknown == messages {
                out.append(.malformed(FrameIssue(pos, "OSC message \(first ?? "") is not a VMC message")))
            }
            return out
        }

        /// Walks `e` with `OSC.walk`, values the fast path takes going to it and every other message to `apply`.
        private mutating func general(_ e: UnsafeRawBufferPointer, depth: Int, _ pos: SourcePosition, _ arrival: Double,
                                      _ out: inout [DecodedItem], _ messages: inout Int, _ unknown: inout Int,
                                      _ first: inout String?) throws(OSC.OSCError) {
            // The two closures share a copy, written back after: two closures passed to one call may not both
            // capture `self` for writing.
            var me = self
            defer { self = me }
            try OSC.walk(e, depth: depth, handled: { e in
                guard me.useFastPath, me.fastValue(e) else { return false }
                messages += 1
                return true
            }) { m in
                messages += 1
                if messages == 1, !m.addressIs("/VMC/Ext/Blend/Val"), !m.addressIs("/VMC/Ext/Blend/Apply") {
                    first = String(decoding: m.d[m.address].prefix(60), as: UTF8.self)
                }
                me.apply(m, pos, &out, &unknown, arrival)
            }
        }

        /// Applies one message: a value, the Apply that makes a frame, or the head bone.
        @inline(__always)
        private mutating func apply(_ m: OSC.MessageView, _ pos: SourcePosition, _ out: inout [DecodedItem],
                                    _ unknown: inout Int, _ arrival: Double) {
            if m.addressIs("/VMC/Ext/Blend/Val") {
                guard let name = m.string(0), let v = m.number(1), v.isFinite else {
                    out.append(.malformed(FrameIssue(pos, "/VMC/Ext/Blend/Val needs a name and a number")))
                    return
                }
                setValue(name, v)
            } else if m.addressIs("/VMC/Ext/Blend/Apply") {
                if let p = FrameTime.problem(arrival) { out.append(.malformed(FrameIssue(pos, p))); return }
                // A copy of an existing array, so its type is not looked up at run time (see `restValues`).
                var frameValues = BlendShapes.restValues
                frameValues.withUnsafeMutableBufferPointer { _ = $0.update(fromContentsOf: values) }
                out.append(.frame(TrackingFrame(t: arrival, blend: BlendShapes(values: frameValues) ?? BlendShapes(), head: head), pos))
            } else if m.addressIs("/VMC/Ext/Bone/Pos") {
                guard m.tags.count >= 8, let bone = m.string(0) else {
                    out.append(.malformed(FrameIssue(pos, "/VMC/Ext/Bone/Pos needs a bone name and 7 numbers")))
                    return
                }
                guard bone.elementsEqual("Head".utf8) else { return }
                let q = (4...7).compactMap { m.number($0) }
                guard q.count == 4, q.allSatisfy(\.isFinite) else {
                    out.append(.malformed(FrameIssue(pos, "/VMC/Ext/Bone/Pos Head: the rotation is not 4 numbers")))
                    return
                }
                head = VMCDecoder.headPose(qx: q[0], qy: q[1], qz: q[2], qw: q[3])
            } else {
                // Other VMC messages (root, trackers, time, status) carry nothing a face gesture needs.
                if !UnsafeRawBufferPointer(rebasing: m.d[m.address]).starts(with: "/VMC/".utf8) { unknown += 1 }
            }
        }

        /// Sets the shape or shapes a `/VMC/Ext/Blend/Val` names.
        @inline(__always)
        private mutating func setValue(_ name: UnsafeRawBufferPointer, _ v: Double) {
            if let shape = names.shape(name, guess: lastShape &+ 1) {
                values[shape] = Float(min(1, max(0, v)))
                lastShape = shape
            } else {
                for (shape, scale) in VMCDecoder.shapes(named: String(decoding: name, as: UTF8.self)) {
                    values[shape.rawValue] = Float(min(1, max(0, v * scale)))
                }
            }
        }

        /// Takes a message that is exactly `/VMC/Ext/Blend/Val ,sf name value` with a finite value (what
        /// senders send dozens of times a frame) and returns true; anything else is left to the general reader.
        ///
        /// Every byte this accepts, `OSC.walk` would accept and read the same way.
        @inline(__always)
        private mutating func fastValue(_ e: UnsafeRawBufferPointer) -> Bool {
            let n = e.count
            guard n >= 32, n % 4 == 0 else { return false }
            // The first 24 bytes of every such message.
            let header: StaticString = "/VMC/Ext/Blend/Val\0\0,sf\0"
            let p = header.utf8Start
            let w0 = e.loadUnaligned(as: UInt64.self), w1 = e.loadUnaligned(fromByteOffset: 8, as: UInt64.self),
                w2 = e.loadUnaligned(fromByteOffset: 16, as: UInt64.self)
            guard w0 == UnsafeRawPointer(p).loadUnaligned(as: UInt64.self),
                  w1 == UnsafeRawPointer(p).loadUnaligned(fromByteOffset: 8, as: UInt64.self),
                  w2 == UnsafeRawPointer(p).loadUnaligned(fromByteOffset: 16, as: UInt64.self) else { return false }
            // Most often the name is the next shape's, spelt as ARKit spells it: three word compares, where the
            // search below and the name lookup after it each loop a number of times that changes with the name.
            let guess = lastShape + 1 < BlendShape.count ? max(0, lastShape + 1) : 0
            let key = keys[guess]
            if n == 28 + key.size {
                let x1 = e.loadUnaligned(fromByteOffset: 24, as: UInt64.self) | 0x20
                let x2 = e.loadUnaligned(fromByteOffset: 24 + key.second, as: UInt64.self) | key.or2
                let x3 = e.loadUnaligned(fromByteOffset: 16 + key.size, as: UInt64.self) | key.or3
                if (x1 ^ key.w1) | (x2 ^ key.w2) | (x3 ^ key.w3) == 0 {
                    let value = Double(Float(bitPattern: UInt32(bigEndian: e.loadUnaligned(fromByteOffset: n - 4, as: UInt32.self))))
                    guard value.isFinite else { return false }
                    values[guess] = Float(min(1, max(0, value)))
                    lastShape = guess
                    return true
                }
            }
            // The name: its NUL is in the last word before the float, which ends the message.
            var w = 24
            while true {
                guard n - w >= 8 else { return false }
                let v = UInt32(littleEndian: e.loadUnaligned(fromByteOffset: w, as: UInt32.self))
                let zero = (v &- 0x0101_0101) & ~v & 0x8080_8080
                if zero != 0 {
                    guard w + 8 == n else { return false }
                    let end = w + zero.trailingZeroBitCount / 8
                    let value = Double(Float(bitPattern: UInt32(bigEndian: e.loadUnaligned(fromByteOffset: w + 4, as: UInt32.self))))
                    guard value.isFinite else { return false }
                    setValue(UnsafeRawBufferPointer(rebasing: e[24..<end]), value)
                    return true
                }
                w += 4
            }
        }
    }

    /// Each shape's ARKit name as an OSC string (NUL-terminated, padded to 4 bytes), as three words to compare
    /// a message's name with in one step.
    enum VMCKeys {
        struct Key: Sendable {
            /// The padded string's size in bytes (8 to 24).
            var size: Int
            /// Where the second word starts in the string: the three words (at 0, `second` and `size - 8`)
            /// cover it whatever its size, overlapping for the shorter ones.
            var second: Int
            /// The words, their first byte in lowercase; `or2` and `or3` lowercase the first byte of a
            /// message's second and third word when they start at 0 too, as the first word's is.
            var w1: UInt64, w2: UInt64, w3: UInt64
            var or2: UInt64, or3: UInt64
        }

        static let table: [Key] = BlendShape.allCases.map { shape in
            var text = Array(shape.name.utf8) + [0]
            while text.count % 4 != 0 { text.append(0) }
            precondition(text.count >= 8 && text.count <= 24 && text[0] | 0x20 == text[0],
                         "a blend name must make an OSC string of 8 to 24 bytes and start in lowercase")
            func word(_ at: Int) -> UInt64 {
                (0..<8).reduce(UInt64(0)) { $0 | UInt64(text[at + $1]) << UInt64($1 * 8) }
            }
            let second = min(8, text.count - 8)
            return Key(size: text.count, second: second, w1: word(0), w2: word(second), w3: word(text.count - 8),
                       or2: second == 0 ? 0x20 : 0, or3: text.count == 8 ? 0x20 : 0)
        }
    }

    /// Head yaw, pitch and roll from a Unity (left-handed, y up, z forward) rotation quaternion.
    static func headPose(qx: Double, qy: Double, qz: Double, qw: Double) -> HeadPose {
        let n = (qx * qx + qy * qy + qz * qz + qw * qw).squareRoot()
        guard n > 1e-9 else { return HeadPose(yaw: 0, pitch: 0, roll: 0) }
        let (x, y, z, w) = (qx / n, qy / n, qz / n, qw / n)
        let yaw = atan2(2 * (w * y + x * z), 1 - 2 * (x * x + y * y))
        let pitch = asin(max(-1, min(1, 2 * (w * x - y * z))))
        let roll = atan2(2 * (w * z + x * y), 1 - 2 * (x * x + z * z))
        return HeadPose(yaw: yaw, pitch: pitch, roll: roll)
    }

    /// The blend shapes a VMC name sets, each with a scale.
    static func shapes(named name: String) -> [(BlendShape, Double)] {
        if let s = BlendShape(name: name) { return [(s, 1)] }
        if let v = vrm[name.lowercased()] { return v }
        return []
    }

    /// VRM 0.x and 1.0 expression names, lower-cased. "Left" is the avatar's (the user's own) left.
    static let vrm: [String: [(BlendShape, Double)]] = [
        "blink_l": [(.eyeBlinkLeft, 1)], "blink_r": [(.eyeBlinkRight, 1)],
        "blinkleft": [(.eyeBlinkLeft, 1)], "blinkright": [(.eyeBlinkRight, 1)],
        "blink": [(.eyeBlinkLeft, 1), (.eyeBlinkRight, 1)],
        "a": [(.jawOpen, 1)], "aa": [(.jawOpen, 1)], "o": [(.jawOpen, 0.6), (.mouthFunnel, 1)], "oh": [(.jawOpen, 0.6), (.mouthFunnel, 1)],
        "u": [(.mouthPucker, 1)], "ou": [(.mouthPucker, 1)],
        "joy": [(.mouthSmileLeft, 1), (.mouthSmileRight, 1)], "happy": [(.mouthSmileLeft, 1), (.mouthSmileRight, 1)],
        "fun": [(.mouthSmileLeft, 0.6), (.mouthSmileRight, 0.6)], "relaxed": [(.mouthSmileLeft, 0.6), (.mouthSmileRight, 0.6)],
        "angry": [(.browDownLeft, 1), (.browDownRight, 1)],
        "sorrow": [(.browInnerUp, 1), (.mouthFrownLeft, 1), (.mouthFrownRight, 1)],
        "sad": [(.browInnerUp, 1), (.mouthFrownLeft, 1), (.mouthFrownRight, 1)],
        "surprised": [(.browOuterUpLeft, 1), (.browOuterUpRight, 1), (.browInnerUp, 1), (.eyeWideLeft, 1), (.eyeWideRight, 1)],
    ]
}
