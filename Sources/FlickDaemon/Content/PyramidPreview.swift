import FlickCore
import FlickDisplay
import FlickSystem

/// A big image's preview, decoded off the loop before its pyramid is built
/// (`ReducedDecoder.preview`: a JPEG scaled by its IDCT, as `djpeg -scale 1/8`, then averaged
/// down to what covers the view), so the whole image shows in about the time of that decode
/// rather than the build's, and can be looked at while the pyramid is built behind it.
///
/// States: decoding → finished(the reduced image, or why not), taken once by `takeResult()`.
final class PyramidPreview {
    /// The image, and the cache its pyramid is then built into.
    let image: String
    let cacheDirectory: String
    /// When the decode started, to say how long it took.
    let started: Instant
    /// Readable once the decode has ended.
    var fileDescriptor: Descriptor { worker.fileDescriptor }
    private let worker: BackgroundWorker
    private let result: Handover

    /// The decode handed from the worker to the loop, once: written before the worker says it
    /// is done, read after the loop saw that (`BackgroundWorker.takeDone`).
    private final class Handover: @unchecked Sendable {
        var decoded: Result<(image: PixelBuffer, fullSize: PixelSize), ContentError>?
    }

    /// Starts decoding `image`'s preview, reduced as far as it still covers its fit into `view`.
    /// - Returns: `nil` if no thread could be started.
    init?(image: String, cacheDirectory: String, view: PixelSize, now: Instant) {
        // As far below the loop as the tile decoders.
        guard let worker = BackgroundWorker(level: .ahead) else { return nil }
        self.image = image
        self.cacheDirectory = cacheDirectory
        self.worker = worker
        started = now
        let result = Handover()
        self.result = result
        let started = worker.submit {
            do {
                result.decoded = .success(try ReducedDecoder.preview(at: image, fittedInto: view))
            } catch let error as ContentError {
                result.decoded = .failure(error)
            } catch {
                result.decoded = .failure(ContentError(path: image, reason: .corrupt(detail: "\(error)")))
            }
        }
        guard started else { return nil }
    }

    deinit { worker.stop() }

    /// The decode's end, once; `nil` while it runs.
    func takeResult() -> Result<(image: PixelBuffer, fullSize: PixelSize), ContentError>? {
        guard worker.takeDone() else { return nil }
        defer { result.decoded = nil }
        return result.decoded
    }
}
