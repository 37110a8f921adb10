import FlickCore

/// A document as the helper shows it: its files' pages, in order, laid out (`DocumentLayout`).
public final class Document {
    /// The files' names, in order.
    public let files: [String]
    /// Where each page's paper lies in the content.
    public let layout: DocumentLayout
    /// Each page's source and its index there, in page order.
    private let pages: [(source: any PageSource, index: Int)]
    /// Each page's size in points, in page order.
    public let pageSizes: [DocumentPageSize]

    /// Opens `files` (their bytes in memory: the tests, the fuzz target, the benchmark) and lays
    /// them out.
    /// - Parameters:
    ///   - files: each file's name and bytes, in page order.
    ///   - options: the layout's settings (page width, cell, gap, direction, most pages).
    /// - Throws: `DocumentError` naming the file (and page) at fault.
    public convenience init(files: [(name: String, bytes: [UInt8])], options: RenderOptions) throws(DocumentError) {
        try self.init(names: files.map(\.name), options: options) { index, images, limit throws(DocumentError) in
            try PageSources.open(files[index].bytes, name: files[index].name, images: images, limit: limit)
        }
    }

    /// Opens the files flickd passed (`options.documents`: descriptors, read from offset 0) and
    /// lays them out. A file (or an image's decoded pixels) may take at most a quarter of
    /// `--memory-mb`: it is held twice while parsed (its bytes and the parser's copy).
    /// - Throws: `DocumentError` naming the file (and page) at fault.
    public convenience init(descriptors options: RenderOptions) throws(DocumentError) {
        try self.init(names: options.documents.map(\.name), options: options) { index, images, limit throws(DocumentError) in
            try PageSources.open(fd: options.documents[index].fd, name: options.documents[index].name, images: images, limit: limit)
        }
    }

    /// Opens file `index` of `names` with `open` (given the shared image cache and the most bytes
    /// a file may take), in order, and lays their pages out.
    init(names: [String], options: RenderOptions,
         open: (Int, DecodedImages, Int) throws(DocumentError) -> any PageSource) throws(DocumentError) {
        var pages: [(source: any PageSource, index: Int)] = [], sizes: [DocumentPageSize] = []
        var owners: [(name: String, first: Int)] = []
        let images = DecodedImages()
        let limit = (options.memoryMB << 20) / 4
        for (i, name) in names.enumerated() {
            let source = try open(i, images, limit)
            owners.append((name, sizes.count))
            // The count before the layout: a 10 000-page file is refused before its pages are laid out.
            guard sizes.count + source.pageSizes.count <= options.maxPages else {
                let error = DocumentLayoutError.tooManyPages(count: sizes.count + source.pageSizes.count, maximum: options.maxPages)
                throw DocumentError(file: name, reason: .tooManyPages, detail: error.message(page: ""))
            }
            for index in source.pageSizes.indices { pages.append((source, index)) }
            sizes += source.pageSizes
        }
        do {
            layout = try DocumentLayout(pages: sizes, direction: options.direction, pageWidth: options.pageWidth, cell: options.cell,
                                        gap: options.gap, maxPages: options.maxPages)
        } catch {
            // Name the file and its own page, as a person looking at that file counts.
            let owner = error.page.flatMap { page in owners.last { $0.first < page } }
            let name = owner?.name ?? names.last ?? "document"
            let local = error.page.map { $0 - (owner?.first ?? 0) }
            throw DocumentError(file: name, page: local, reason: DocumentError.reason(for: error),
                                detail: error.message(page: local.map { "page \($0)" } ?? ""))
        }
        self.files = names
        self.pages = pages
        self.pageSizes = sizes
    }

    /// The pages' sizes as `provide`'s `document.pages` carries them: `[width, height, count]`
    /// runs, in page order.
    public var pageRuns: [(width: Double, height: Double, count: Int)] {
        var runs: [(width: Double, height: Double, count: Int)] = []
        for size in pageSizes {
            if let last = runs.last, last.width == size.width, last.height == size.height {
                runs[runs.count - 1].count += 1
            } else {
                runs.append((size.width, size.height, 1))
            }
        }
        return runs
    }

    /// Draws page `index` (over all files) onto `context`, its user space the page's points.
    func draw(page index: Int, on context: OpaquePointer) -> Bool {
        guard pages.indices.contains(index) else { return false }
        return pages[index].source.draw(page: pages[index].index, on: context)
    }
}
