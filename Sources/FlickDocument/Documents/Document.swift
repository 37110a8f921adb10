import FlickCore

/// A document as the helper shows it: its files' pages, in order, laid out (`DocumentLayout`).
public final class Document {
    /// The files' names, in order.
    public let files: [String]
    /// Where each page's paper lies in the content.
    public let layout: DocumentLayout
    /// Each page's source, its index there and its file's (in `files`), in page order.
    private let pages: [(source: any PageSource, index: Int, file: Int)]
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
        var pages: [(source: any PageSource, index: Int, file: Int)] = [], sizes: [DocumentPageSize] = []
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
            for index in source.pageSizes.indices { pages.append((source, index, i)) }
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

    /// The links on page `index` (over all files; none past the last): their areas in that
    /// page's points from its top-left, a target page counted over all files too. A link to a
    /// page its own file does not have (a PDF's NextPage on its last page) leads nowhere:
    /// `missing`, naming the page as a person counts in that file. An area that is not finite,
    /// or has no width or height, cannot be touched: left out.
    public func links(page index: Int) -> [PageLink] {
        guard pages.indices.contains(index) else { return [] }
        let (source, local, file) = pages[index]
        // The file's first page over the document: its pages are consecutive.
        let first = index - local
        return source.links(page: local).compactMap { link in
            guard link.hasArea else { return nil }
            var link = link
            link.page = index
            if case let .page(target, x, y) = link.target {
                link.target = source.pageSizes.indices.contains(target)
                    ? .page(first + target, x: x, y: y)
                    : .missing("page \(target + 1) of \(files[file]) does not exist")
            }
            return link
        }
    }
}
