import Config
import Shell
import Testing
import TrackingCore

@Suite struct FocusTests {
    @Test func glanceAwayShorterThanGraceKeepsFocus() {
        var f = FocusTracker(grace: 0.3)
        f.gaze(on: "a", at: 1.0)
        f.gaze(on: nil, at: 1.2)
        #expect(f.focused == "a")
        f.gaze(on: nil, at: 1.29)
        #expect(f.focused == "a")
        f.gaze(on: nil, at: 1.31)
        #expect(f.focused == nil)
    }

    @Test func returningWithinGraceRestartsIt() {
        var f = FocusTracker(grace: 0.3)
        f.gaze(on: "a", at: 1.0)
        f.gaze(on: nil, at: 1.25)
        f.gaze(on: "a", at: 1.28)
        f.gaze(on: nil, at: 1.5)
        #expect(f.focused == "a")
    }

    @Test func anotherTargetTakesFocusAtOnce() {
        var f = FocusTracker(grace: 0.3)
        f.gaze(on: "a", at: 1.0)
        f.gaze(on: "b", at: 1.01)
        #expect(f.focused == "b")
    }

    @Test func gestureDuringGlanceAwayActsOnFocusedTarget() {
        var s = Fixture.armedState()
        let notes = Fixture.gaze(at: "launcher.notes", in: s)
        _ = reduce(&s, .gaze(notes, at: 1))
        let between = GazePoint(x: 0.5, y: 0.02 + 2.0 / 30)   // a blank row above the tiles
        _ = reduce(&s, .gaze(between, at: 1.1))
        #expect(s.focus.focused == "launcher.notes")
        _ = reduce(&s, Fixture.gesture("activate", at: 1.2, gaze: between))
        #expect(s.top.name == "notes")
    }

    @Test func gestureAfterGraceOnBlankDoesNothing() {
        var s = Fixture.armedState()
        _ = reduce(&s, .gaze(Fixture.gaze(at: "launcher.notes", in: s), at: 1))
        let blank = GazePoint(x: 0.5, y: 0.02 + 2.0 / 30)
        _ = reduce(&s, .gaze(blank, at: 2))
        #expect(s.focus.focused == nil)
        #expect(reduce(&s, Fixture.gesture("activate", at: 2.2, gaze: blank)).isEmpty)
        #expect(s.top.name == "launcher")
    }

    @Test func focusDropsWhenScreenChanges() {
        var s = Fixture.armedState()
        _ = reduce(&s, .gaze(Fixture.gaze(at: "launcher.notes", in: s), at: 1))
        _ = reduce(&s, .key(.enter))
        #expect(s.top.name == "notes")
        #expect(s.focus.focused != "launcher.notes")
    }

    @Test func arrowsMoveToNearestTargetInDirection() {
        let map = HitMap([Target(id: "a", label: "A", rect: Rect(x: 0, y: 0, w: 10, h: 3)),
                          Target(id: "b", label: "B", rect: Rect(x: 12, y: 0, w: 10, h: 3)),
                          Target(id: "c", label: "C", rect: Rect(x: 0, y: 5, w: 10, h: 3))])
        #expect(FocusMover.move(from: "a", .right, in: map) == "b")
        #expect(FocusMover.move(from: "a", .down, in: map) == "c")
        #expect(FocusMover.move(from: "c", .up, in: map) == "a")
        #expect(FocusMover.move(from: "a", .left, in: map) == "a")
        #expect(FocusMover.move(from: nil, .left, in: map) == "a")
        #expect(FocusMover.step(from: "c", by: 1, in: map) == "a")
    }
}

/// Issue 32: a steadier pointer near targets. A gaze just outside a key picks it; one on the gap between two
/// keys, or a cell into the neighbour, keeps the key in use.
@Suite struct SnappingTests {
    static let map = HitMap([Target(id: "a", label: "A", rect: Rect(x: 10, y: 5, w: 6, h: 3)),
                             Target(id: "b", label: "B", rect: Rect(x: 17, y: 5, w: 6, h: 3)),
                             Target(id: "far", label: "F", rect: Rect(x: 60, y: 20, w: 6, h: 3))])

    @Test func aGazeJustBesideAKeyPicksIt() {
        #expect(Self.map.snapped(CellPoint(x: 8, y: 6), current: nil)?.id == "a", "two columns left of it")
        #expect(Self.map.snapped(CellPoint(x: 12, y: 8), current: nil)?.id == "a", "the row below")
        #expect(Self.map.snapped(CellPoint(x: 12, y: 10), current: nil) == nil, "two rows below is out of reach")
        #expect(Self.map.snapped(CellPoint(x: 40, y: 12), current: nil) == nil, "nothing near")
    }

    @Test func theKeyInUseHoldsUntilTheGazeIsWellIntoTheNext() {
        // The gap between a and b is column 16; b starts at 17.
        #expect(Self.map.snapped(CellPoint(x: 16, y: 6), current: "a")?.id == "a")
        #expect(Self.map.snapped(CellPoint(x: 17, y: 6), current: "a")?.id == "a", "one cell into b: a holds")
        #expect(Self.map.snapped(CellPoint(x: 18, y: 6), current: "a")?.id == "b", "two cells in: b")
        #expect(Self.map.snapped(CellPoint(x: 13, y: 6), current: "b")?.id == "a", "inside another key, far from the one in use")
        #expect(Self.map.snapped(CellPoint(x: 16, y: 6), current: "b")?.id == "b", "and b holds the gap the other way")
    }

    @Test func aShakingPointerOnTheGapDoesNotHop() {
        var d = Driver(.gesture, screen: "launcher")
        d.armWithAStillFace()
        let a = d.target("launcher.notes").rect, b = d.target("launcher.messages").rect
        let gap = (a.maxX + b.x) / 2
        var seen = Set<String>()
        for k in 0..<120 {
            // Tremor of a cell each way around the gap's column.
            let x = gap + (k % 3) - 1
            d.send(.gaze(d.gaze(CellPoint(x: x, y: a.y + a.h / 2)), at: d.t + Double(k) / 60))
            if k > 10, let f = d.state.focus.focused { seen.insert(f) }
        }
        #expect(seen.count == 1, "the focus hopped: \(seen)")
    }
}

/// Issue 32: while a gesture is being made the focus stays on the target it began on, whatever the gaze does
/// meanwhile (it dips as the jaw opens, jumps as the eyes close); talking with the microphone open does not
/// hold it.
@Suite struct FocusDuringGesturesTests {
    @Test func theFocusHoldsWhileTheJawIsOpenAndFollowsAgainAfter() {
        var d = Driver(.gesture, screen: "launcher")
        d.armWithAStillFace()
        var t = d.t + 1
        func frame(_ target: String, jaw: Float = 0) {
            var b = BlendShapes()
            b[.jawOpen] = jaw
            d.send(.frame(TrackingSample(t: t, gaze: GazePoint(x: 0.5, y: 0.5), target: target, blend: b)))
            t += 1.0 / 60
        }
        for _ in 0..<30 { frame("launcher.notes") }
        #expect(d.state.focus.focused == "launcher.notes")
        for _ in 0..<60 { frame("launcher.messages", jaw: 0.7) }
        #expect(d.state.focus.focused == "launcher.notes", "the gaze dipped onto another tile while the jaw was open")
        for _ in 0..<60 { frame("launcher.messages") }
        #expect(d.state.focus.focused == "launcher.messages")
    }

    @Test func talkingWithTheMicrophoneOpenDoesNotHoldTheFocus() {
        var d = Driver(.gesture, screen: "note-editor")
        d.armWithAStillFace()
        _ = d.send(.speech("start dictation", isFinal: true))
        #expect(d.state.dictating)
        let ids = d.state.hitMap.targets.map(\.id)
        guard let a = ids.first(where: { $0.contains("key.q") }), let b = ids.first(where: { $0.contains("key.p") }) else {
            Issue.record("no keys: \(ids)"); return
        }
        var t = d.t + 1
        for (target, n) in [(a, 30), (b, 60)] {
            for _ in 0..<n {
                var blend = BlendShapes()
                blend[.jawOpen] = 0.45
                d.send(.frame(TrackingSample(t: t, gaze: GazePoint(x: 0.5, y: 0.5), target: target, blend: blend)))
                t += 1.0 / 60
            }
        }
        #expect(d.state.focus.focused == b)
    }
}
