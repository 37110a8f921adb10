import FlickCore
import FlickDisplay
import Logging

/// A big image's pyramid, built off the loop (`PyramidBuild`) while the content on screen (or
/// the placeholder, at start) stays, then shown. First its preview is decoded
/// (`PyramidPreview`) and shown where the image is wanted, so the whole image is seen in the
/// time of a scaled decode and can be looked at while the pyramid is built behind it.
///
/// States, per image: previewing → building → shown (or refused). A request for another image
/// while one is under way waits for it (`nextPyramid`).
extension ContentHost {
    /// Shows `image`'s preview, then builds its pyramid off the loop and shows the image when
    /// it is done; a build under way for another image finishes first, then this one starts.
    func buildPyramid(of image: String, into cacheDirectory: String) {
        if let underWay = building?.image ?? previewing?.image {
            if underWay != image { nextPyramid = (image, cacheDirectory) }
            return
        }
        guard let view = screen?.viewPixels,
              let preview = PyramidPreview(image: image, cacheDirectory: cacheDirectory,
                                           view: view, now: clock()) else {
            startBuild(of: image, into: cacheDirectory)
            return
        }
        previewing = preview
    }

    /// The preview's decode ended: shown if the image is still what is wanted, then the
    /// pyramid's build starts.
    func previewDecoded(_ preview: PyramidPreview, _ result: Result<(image: PixelBuffer, fullSize: PixelSize), ContentError>) {
        previewing = nil
        let image = preview.image
        switch result {
        case .success(let decoded):
            let wantedHere = image == wanted || image == loadPending || image == name
            guard wantedHere, let screen else { break }
            let tiles = Content.TileOptions(cacheBytes: configuration.cacheMegabytes << 20, workers: tileWorkers)
            do {
                let content = try Content.preview(image: decoded.image, fullSize: decoded.fullSize, path: image, tiles: tiles)
                let keeping = name == image ? screen.position : nil
                try present(content, name: image)
                if let keeping { screen.restore(offset: keeping.offset, zoomScale: keeping.zoomScale, at: clock()) }
                // The bar was drawn on the placeholder, which is gone; what is on disk shows now.
                progress = nil
                progressDue = nil
                contentError = nil
                refusedSignature = nil
                previewShown = (image, decoded.image.size)
                let milliseconds = (clock() - preview.started).nanoseconds / 1_000_000
                let line = "content: \(image) shown from a preview of \(decoded.image.size) (\(decoded.fullSize) reduced), "
                    + "decoded in \(milliseconds) ms, while its pyramid is built"
                logger.notice("\(line)")
            } catch {
                logger.report(.warning, "content: the preview of \(image) cannot be shown: ", error)
            }
        case .failure(let error):
            logger.report(.warning, "content: no preview of \(image), \(name ?? "nothing") shows until its pyramid is built: ", error)
        }
        startBuild(of: image, into: preview.cacheDirectory)
    }

    /// Starts the `flickd pyramid` child for `image`.
    private func startBuild(of image: String, into cacheDirectory: String) {
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
        defer { previewShown = nil }
        progress = nil
        progressDue = nil
        switch result {
        case .success(let descriptor):
            logger.info("content: pyramid of \(build.image) built in \(descriptor): \(build.lastProgress ?? "")")
            let origin: Origin = loadPending == build.image ? .load : .refreshed
            if loadPending == build.image { loadPending = nil }
            try? show(path: build.image, configuration: configuration, origin: origin)
        case .failure(let error) where ContentIdentity.signature(of: build.image) != build.startedSignature:
            // Replaced while it was read (a content update mid-build): the new file is built now,
            // not refused for what the old one did.
            guard build.image == wanted || build.image == loadPending, nextPyramid?.image != build.image else {
                logger.notice("content: \(build.image) changed while its pyramid was built (\(error.reason))")
                break
            }
            logger.notice("content: \(build.image) changed while its pyramid was built: building it again (\(error.reason))")
            buildPyramid(of: build.image, into: build.cacheDirectory)
            return
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
        if previewShown?.image == path && name == path { return "its preview stays on screen" }
        return name == path ? "its version shown before stays on screen" : "\(name) stays on screen"
    }
}
