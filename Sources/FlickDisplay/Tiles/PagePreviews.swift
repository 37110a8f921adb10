import Glibc

/// Small previews of a folder's pages, made ahead of need by the tile workers so that a page
/// whose tiles are not made yet (a jump across ten pages) is drawn from its preview, enlarged,
/// never black; its real tiles replace it when they come.
///
/// Bounded in memory: all previews together hold at most `budgetBytes`, whatever the number
/// of pages. Each is an eighth of its page's size (libjpeg-turbo's cheapest scaled decode) or
/// smaller, so that every page's fits in the budget.
public final class PagePreviews: @unchecked Sendable {
    /// The most bytes all previews hold together: 4 MiB, an eighth-size preview of each of 30
    /// 1080p slides; beyond that many pages, each preview is smaller.
    public static let budgetBytes = 4 << 20
    /// How many pages.
    public let count: Int
    private var mutex = pthread_mutex_t()
    private var previews: [PageImage?]
    /// The next page to make a preview of: pages are claimed in order, each by one worker.
    private var nextClaim = 0

    /// Previews of `count` pages, none made yet.
    init(count: Int) {
        self.count = count
        previews = Array(repeating: nil, count: count)
        pthread_mutex_init(&mutex, nil)
    }

    deinit { pthread_mutex_destroy(&mutex) }

    /// The largest size one preview of a page of `page` may have: an eighth of it, and within
    /// the budget's share of one page.
    public func previewFit(page: PixelSize) -> PixelSize {
        let eighth = PixelSize(width: max(1, page.width / 8), height: max(1, page.height / 8))
        return eighth.shrunk(toArea: Self.budgetBytes / 4 / max(1, count))
    }

    /// Bytes the previews made so far hold.
    public var bytes: Int {
        locked { previews.reduce(0) { $0 + ($1.map { $0.image.stride * $0.image.height } ?? 0) } }
    }

    /// Whether every page's preview has been attempted.
    public var isComplete: Bool { locked { nextClaim >= count } }

    /// Page `index`'s preview, if made.
    func preview(_ index: Int) -> PageImage? {
        locked { previews.indices.contains(index) ? previews[index] : nil }
    }

    /// The next page whose preview nobody has started, if any.
    func claim() -> Int? {
        locked {
            guard nextClaim < count else { return nil }
            defer { nextClaim += 1 }
            return nextClaim
        }
    }

    /// Keeps page `index`'s preview (`nil`: it could not be made).
    func store(_ index: Int, _ preview: PageImage?) {
        locked { if previews.indices.contains(index) { previews[index] = preview } }
    }

    private func locked<T>(_ body: () -> T) -> T {
        pthread_mutex_lock(&mutex)
        defer { pthread_mutex_unlock(&mutex) }
        return body()
    }
}
