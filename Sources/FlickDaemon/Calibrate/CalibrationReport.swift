import FlickCore
import FlickInput

extension Calibrator.Result {
    /// Each point's target, touch, where the matrix puts the touch and how far that is from
    /// the target, then the RMS and largest residual: whether the fit can be trusted.
    public var residualLines: [String] {
        let fit = self.fit
        var lines = ["fit over \(fit.targets.count) points (screen px):"]
        for (i, r) in fit.residuals.enumerated() {
            let t = fit.targets[i], touch = fit.touches[i], c = fit.corrected[i]
            lines.append("  point \(i + 1): target (\(t.x.brief), \(t.y.brief)), touch (\(touch.x.fixed(1)), \(touch.y.fixed(1))), "
                         + "calibrated (\(c.x.fixed(2)), \(c.y.fixed(2))), residual \(r.fixed(2)) px")
        }
        lines.append("residuals: rms \(fit.rmsResidual.fixed(2)) px, max \((fit.residuals.max() ?? 0).fixed(2)) px")
        return lines
    }

    /// The two ways to apply the matrix: the config line and a udev rule.
    public var outputLines: [String] {
        var lines = ["# flickd config, under [input]:", fit.tomlLine,
                     "# or a udev rule (e.g. /etc/udev/rules.d/99-touch-calibration.rules), used when the config has calibration = []:",
                     fit.udevRule(deviceName: deviceName)]
        if mapping.rotation != 0 || mapping.flipX || mapping.flipY {
            lines.append("# the matrix is for flickd with input.rotation = \(mapping.rotation)"
                         + (mapping.flipX ? ", flip_x" : "") + (mapping.flipY ? ", flip_y" : "")
                         + ", which flickd applies after it; other libinput users need that turn in the matrix")
        }
        return lines
    }
}
