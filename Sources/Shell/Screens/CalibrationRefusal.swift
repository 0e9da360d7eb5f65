import Localization
import TrackingCore

/// Why a calibration was refused, kept as its reason and figures until it is drawn, so that it is worded in
/// the language in use then, with its decimal separator.
enum CalibrationRefusal: Sendable, Equatable {
    /// The pointer's fit was refused; `skipped` are the dots the gaze never settled on.
    case fit(CalibrationProblem.Reason, skipped: [Int])
    /// The check dots refused the fit (nil: the check failed without a reason).
    case check(CalibrationCheck.Why?, skipped: [Int])
    /// The drift correction saw too few steady samples at the centre dot.
    case centre
    /// The gesture calibration was refused.
    case gestures(GestureCalibrationProblem.Reason)

    /// The reason in `t`'s language.
    func text(_ t: Catalog) -> String {
        func d(_ v: Double, _ digits: Int) -> String { SetupScreen.decimal(v, digits, t) }
        let why: String
        var skipped: [Int] = []
        switch self {
        case let .fit(reason, s):
            skipped = s
            switch reason {
            case let .tooFewSteady(good, perTarget, needed):
                why = t.trn("too few steady samples: {n} dot had {perTarget} or more, {needed} are needed (look at each dot until it fills)",
                            "too few steady samples: {n} dots had {perTarget} or more, {needed} are needed (look at each dot until it fills)",
                            good, ["perTarget": String(perTarget), "needed": String(needed)])
            case .noMapping:
                why = t.tr("the targets' samples cannot fix a mapping (all in one line, or the pointer never moved)")
            case let .worse(after, before):
                why = t.tr("the fit points worse than no calibration ({after} cells off, {before} without)", ["after": d(after, 1), "before": d(before, 1)])
            case let .faceLost(seconds, dot, of):
                why = t.tr("the face was lost for {seconds} s at dot {dot} of {count}", ["seconds": String(seconds), "dot": String(dot), "count": String(of)])
            }
        case let .check(reason, s):
            skipped = s
            switch reason {
            case nil: why = t.tr("the check failed")
            case let .tooFewDots(needed, of)?:
                why = t.tr("too few check dots were looked at ({needed} of {count} are needed)", ["needed": String(needed), "count": String(of)])
            case let .tooFar(error, limit)?:
                why = t.tr("the check dots were {error} cells off (the limit is {limit})", ["error": d(error, 1), "limit": d(limit, 0)])
            case let .notBetter(error, inUse)?:
                why = t.tr("the check dots were {error} cells off, the pointer in use {inUse}", ["error": d(error, 1), "inUse": d(inUse, 1)])
            }
        case .centre:
            why = t.tr("too few steady samples at the centre dot (look at it until it fills)")
        case .gestures(let reason):
            switch reason {
            case .faceLost(nil): why = t.tr("the face was lost while reading your neutral face; keep your face in view")
            case .faceLost(let gesture?): why = t.tr("the face was lost during {gesture}; keep your face in view", ["gesture": gesture])
            case let .heldTooLong(gesture, seconds):
                why = t.tr("{gesture} was held past {seconds} s; let go after each performance", ["gesture": gesture, "seconds": String(seconds)])
            case .nothingSeen(let seconds): why = t.tr("no gesture was seen for {seconds} s, so the calibration stopped", ["seconds": String(seconds)])
            case .nothingToTune: why = t.tr("the keymap binds no gesture that a calibration can tune")
            case .notFinished: why = t.tr("the calibration has not finished")
            case .notTwice(let gesture): why = t.tr("{gesture} was not performed twice", ["gesture": gesture])
            case let .tooWeak(gesture, rise):
                why = t.tr("{gesture} rose only {rise} above your neutral face; perform it more clearly", ["gesture": gesture, "rise": d(rise, 2)])
            case .noneSeen: why = t.tr("no gesture was seen; the tracker may not send these shapes")
            }
        }
        guard !skipped.isEmpty else { return why }
        return why + " " + t.trn("(the gaze never settled on dot {dots})", "(the gaze never settled on dots {dots})", skipped.count,
                                 ["dots": skipped.map(String.init).joined(separator: ", ")])
    }
}
