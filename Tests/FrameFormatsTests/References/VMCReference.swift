// The VMC decoder as it was before its values were staged in place (commit 695c2c1), kept unchanged as
// the oracle the current decoder must agree with, datagram by datagram. Not used outside tests.

import Foundation
@testable import FrameFormats
import TrackingCore

/// Frames from the VMC protocol (OSC over UDP, port 39539): `/VMC/Ext/Blend/Val name value` sets a shape,
/// `/VMC/Ext/Blend/Apply` ends a frame, `/VMC/Ext/Bone/Pos "Head" px py pz qx qy qz qw` gives the head.
///
/// Values persist between frames as the protocol defines. Shape names may be ARKit's (`JawOpen`, `jawOpen`)
/// or VRM's (`Blink_L`, `A`, VRM 1.0 `blinkLeft`, `aa`). VMC carries no time, so frames take the time the
/// datagram arrived, given by the caller.
struct VMCReferenceDecoder: Sendable {
    static let defaultPort: UInt16 = 39539
    /// The values so far, in ``BlendShape`` order (a plain array of this module: no call per value).
    var values = [Float](repeating: 0, count: BlendShape.count)
    var head: HeadPose?
    var pendingShapes = false
    /// The shape the last value set: senders list shapes in the same order every frame, so the next name is
    /// looked for after it first.
    var lastShape = -1
    /// Off in tests only, to compare the fast path for values with the general reader on the same input.
    var useFastPath = true
    /// The blend-shape names, held here rather than looked up for every value.
    private let names = BlendNames.table

    init() {}

    /// Decodes one datagram that arrived at `arrival` seconds; an Apply inside it yields a frame.
    ///
    /// The packet is read in place (`OSC.walk`), so the usual bundle of values and an Apply allocates only
    /// its result. A packet that is not OSC changes nothing, not even the values before the damage.
    mutating func decode(_ d: UnsafeRawBufferPointer, index: Int, arrival: Double) -> [DecodedItem] {
        let pos = SourcePosition(.packet, index)
        var next = self
        var out: [DecodedItem] = []
        var messages = 0, unknown = 0
        var first: String?
        func general(_ e: UnsafeRawBufferPointer, depth: Int) throws(OSC.OSCError) {
            try OSC.walk(e, depth: depth, handled: { e in
                guard next.useFastPath, next.fastValue(e) else { return false }
                messages += 1
                return true
            }) { m in
                messages += 1
                if messages == 1, !m.addressIs("/VMC/Ext/Blend/Val"), !m.addressIs("/VMC/Ext/Blend/Apply") {
                    first = String(decoding: m.d[m.address].prefix(60), as: UTF8.self)
                }
                next.apply(m, pos, &out, &unknown, arrival)
            }
        }
        do throws(OSC.OSCError) {
            // The usual packet, one bundle of values and an Apply, is walked here so that each value goes
            // straight to `fastValue`; anything else, and any element it does not take, goes through `OSC.walk`,
            // which checks it as it would have inside the bundle.
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
                    if next.fastValue(e) { messages += 1 } else { try general(e, depth: 1) }
                    k += size
                }
            } else {
                try general(d, depth: 0)
            }
        } catch {
            return [.malformed(FrameIssue(pos, error.message))]
        }
        self = next
        if out.isEmpty, unknown > 0, unknown == messages {
            out.append(.malformed(FrameIssue(pos, "OSC message \(first ?? "") is not a VMC message")))
        }
        return out
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
            out.append(.frame(TrackingFrame(t: arrival, blend: BlendShapes(values: values) ?? BlendShapes(), head: head), pos))
            pendingShapes = false
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
            head = Self.headPose(qx: q[0], qy: q[1], qz: q[2], qw: q[3])
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
            for (shape, scale) in Self.shapes(named: String(decoding: name, as: UTF8.self)) {
                values[shape.rawValue] = Float(min(1, max(0, v * scale)))
            }
        }
        pendingShapes = true
    }

    /// Takes a message that is exactly `/VMC/Ext/Blend/Val ,sf name value` with a finite value (what senders
    /// send dozens of times a frame) and returns true; anything else is left to the general reader.
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
