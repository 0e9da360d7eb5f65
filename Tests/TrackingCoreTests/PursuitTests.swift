import Testing
@testable import TrackingCore

/// Issue 17: selection by smooth pursuit, with no calibration: the path the pointer follows is picked.
@Suite struct PursuitTests {
    static let paths = PursuitPath.distinct([GazePoint(x: 0.2, y: 0.3), GazePoint(x: 0.5, y: 0.3), GazePoint(x: 0.8, y: 0.3),
                                             GazePoint(x: 0.2, y: 0.7), GazePoint(x: 0.5, y: 0.7), GazePoint(x: 0.8, y: 0.7)],
                                            rx: 0.05, ry: 0.15)

    @Test(arguments: 0..<6)
    func followingAPathSelectsItWhateverTheOffsetAndScale(_ k: Int) {
        var d = PursuitDetector()
        var picked: Int?
        var t = 0.0
        while t < 2, picked == nil {
            // Offset by a fifth of the screen and at 70 % of the size, 100 ms behind: still that path.
            let q = Self.paths[k].position(at: t - 0.1)
            let p = GazePoint(x: 0.2 + 0.7 * q.x, y: 0.1 + 0.7 * q.y)
            picked = d.step(t: t, pointer: p, paths: Self.paths)
            t += 1.0 / 60
        }
        #expect(picked == k)
        #expect(t < 1.0, "selected after \(t) s")
    }

    @Test func aStillGazeAJumpOrALostFaceSelectsNothing() {
        var d = PursuitDetector()
        var rngState: UInt64 = 5
        func noise() -> Double { rngState = rngState &* 6364136223846793005 &+ 1442695040888963407; return Double(rngState >> 40) / Double(1 << 24) * 0.01 }
        for i in 0..<600 {
            // Fixations jumping between two places every half second, with noise.
            let x = (i / 30) % 2 == 0 ? 0.3 : 0.7
            #expect(d.step(t: Double(i) / 60, pointer: GazePoint(x: x + noise(), y: 0.5 + noise()), paths: Self.paths) == nil)
        }
        // Following path 2 but losing the face every 20 frames never fills the window.
        var lost = PursuitDetector()
        for i in 0..<300 {
            let t = Double(i) / 60
            let p: GazePoint? = i % 20 == 19 ? nil : Self.paths[2].position(at: t)
            #expect(lost.step(t: t, pointer: p, paths: Self.paths) == nil)
        }
    }
}
