/// Cuts long audio into pieces a recogniser with a fixed window takes (Whisper's is 30 s), each cut in the
/// quietest place it can be: a file of a long talk is transcribed piece by piece and the texts joined.
///
/// The audio's loudness is measured in 10 ms frames and smoothed over 0.3 s; a piece that would be too long is
/// cut at the quietest smoothed frame between `shortest` and `longest` seconds from its start (the latest of
/// equally quiet ones), so a cut falls between words wherever the speaker paused. Audio with no pause at all is
/// still cut, at its quietest moment. Pure: samples in, ranges out.
public enum SilenceSplit {
    /// The pieces of `samples` (at `rate` Hz), in order, covering all of it, none longer than `longest` seconds.
    public static func pieces(_ samples: [Int16], rate: Int = 16_000, longest: Double = 29.5,
                              shortest: Double = 5) -> [Range<Int>] {
        let frame = max(1, rate / 100)
        let limit = max(frame, Int(longest * Double(rate)))
        guard samples.count > limit else { return samples.isEmpty ? [] : [0..<samples.count] }
        // Energy of each frame, and running sums of it, so a smoothed frame costs one subtraction.
        let frames = (samples.count + frame - 1) / frame
        var sums = [Double](repeating: 0, count: frames + 1)
        for f in 0..<frames {
            var e = 0.0
            for i in (f * frame)..<min(samples.count, (f + 1) * frame) { e += Double(samples[i]) * Double(samples[i]) }
            sums[f + 1] = sums[f] + e
        }
        let half = 15
        func smoothed(_ f: Int) -> Double { sums[min(frames, f + half + 1)] - sums[max(0, f - half)] }
        var out: [Range<Int>] = []
        var start = 0
        while samples.count - start > limit {
            let first = (start + Int(shortest * Double(rate))) / frame + 1
            let last = (start + limit) / frame - 1
            var best = last, quietest = Double.infinity
            if first <= last {
                for f in first...last where smoothed(f) <= quietest { quietest = smoothed(f); best = f }
            }
            let cut = min(start + limit, max(start + 1, best * frame + frame / 2))
            out.append(start..<cut)
            start = cut
        }
        out.append(start..<samples.count)
        return out
    }
}
