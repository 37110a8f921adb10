import FlickDisplay
import Logging

/// A big image's pyramid, built off the loop (`PyramidBuild`) while the content on screen (or
/// the placeholder, at start) stays, then shown.
extension ContentHost {
    /// Builds `image`'s pyramid off the loop and shows the image when it is done; a build under
    /// way for another image finishes first, then this one starts.
    func buildPyramid(of image: String, into cacheDirectory: String) {
        if let building {
            if building.image != image { nextPyramid = (image, cacheDirectory) }
            return
        }
        let size = (try? PyramidBuilder.imageSize(of: image)).map { "\($0)" } ?? "?"
        guard let build = PyramidBuild(image: image, cacheDirectory: cacheDirectory, keeping: shownPyramid,
                                           limit: configuration.cacheLimit, logger: logger) else {
            logger.error("content: cannot start a thread to build the pyramid of \(image)")
            return
        }
        building = build
        let shown = name ?? "nothing"
        logger.notice("content: \(image) is \(size), over content.pixel_budget: building its pyramid in \(cacheDirectory) (once; \(shown) is shown meanwhile)")
    }

    /// The build ended: the image is shown, or why not is logged and the content on screen stays.
    func pyramidBuilt(_ build: PyramidBuild, _ result: Result<String, ContentError>) {
        // Its descriptor stays open while the loop's watch holds it.
        building = nil
        progress = nil
        progressDue = nil
        switch result {
        case .success(let descriptor):
            logger.info("content: pyramid of \(build.image) built in \(descriptor): \(build.lastProgress ?? "")")
            let origin: Origin = loadPending == build.image ? .load : .refreshed
            if loadPending == build.image { loadPending = nil }
            try? show(path: build.image, configuration: configuration, origin: origin)
        case .failure(let error):
            logger.report(.error, "content: the pyramid of \(build.image) could not be built, \(stays(refusing: build.image)): ", error)
            if build.image == wanted {
                contentError = "\(error); \(stays(refusing: build.image))"
                refusedSignature = ContentIdentity.signature(of: build.image)
            }
        }
        if let next = nextPyramid {
            nextPyramid = nil
            buildPyramid(of: next.image, into: next.cacheDirectory)
        }
    }

    /// What stays on screen when `path` could not be shown, in words that are true: when the
    /// file refused is the one shown (replaced on disk by a broken one), what stays is the
    /// version of it read before, not the file named.
    func stays(refusing path: String) -> String {
        guard let name else { return "nothing shown" }
        return name == path ? "its version shown before stays on screen" : "\(name) stays on screen"
    }
}
