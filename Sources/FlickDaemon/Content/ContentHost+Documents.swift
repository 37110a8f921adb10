import FlickControl
import FlickCore
import FlickDisplay
import FlickSystem
import Glibc
import Logging

/// Documents as content (docs/documents.md): a PDF or SVG, or a folder of them, drawn by
/// `flickd-render` as a content provider on a connection of the daemon's own.
extension ContentHost {
    /// Starts showing the document at `path` (its `files` in page order): its helper is started,
    /// and its content shows once the helper provides. A document showing is replaced.
    func startDocument(_ path: String, files: [String]) {
        let view = screen?.viewPixels ?? PixelSize(width: 1, height: 1)
        let arguments = RenderArguments(configuration: configuration, view: view)
        if let documents, documents.path == path, documents.files == files {
            documents.start(arguments: arguments, maxRestarts: configuration.renderRestarts, at: clock())
            return
        }
        stopDocument()
        let hooks = DocumentHost.Hooks(
            adopt: { [unowned self] socket in
                guard let server = self.link as? ControlServer else {
                    throw SystemError(call: "adopt", context: "flickd-render (no control socket)", errno: ENOTCONN)
                }
                return try server.adopt(socket)
            },
            disconnect: { [unowned self] caller in (self.link as? ControlServer)?.disconnect(caller) },
            giveUp: { [unowned self] why in self.showFallback(instead: path, because: why) })
        let host = DocumentHost(path: path, files: files, arguments: arguments, maxRestarts: configuration.renderRestarts,
                                hooks: hooks, logger: logger)
        documents = host
        host.start(arguments: arguments, maxRestarts: configuration.renderRestarts, at: clock())
    }

    /// The document no longer shows: its helper is killed.
    func stopDocument() {
        guard let documents else { return }
        if let caller = documents.caller { providers.release(caller) }
        documents.stop(at: clock())
        self.documents = nil
    }

    /// After a reload or on another panel (a monitor, a window resized): the helper is started
    /// again if its arguments changed (the layout, the tiles or its limits), so the document is
    /// laid out anew.
    func relayDocument() {
        guard let documents, let screen else { return }
        let arguments = RenderArguments(configuration: configuration, view: screen.viewPixels)
        guard arguments != documents.arguments else { return }
        logger.notice("content: \(documents.path) is laid out again (the panel's size or the layout's settings changed): flickd-render restarts")
        documents.start(arguments: arguments, maxRestarts: configuration.renderRestarts, at: clock())
    }

    /// The serving session, when it is the helper's.
    var helperSession: ProviderHost.Session? {
        guard let caller = documents?.caller, let session = providers.session, session.caller == caller else { return nil }
        return session
    }

    /// `status.document`, while a document is the content.
    public var documentStatus: ControlDocumentStatus? { documents?.status }

    /// The helper's `provide`: its document laid out as flickd lays it out, its page rects the
    /// content's pages.
    /// - Throws: a `document` declared by any other connection; a helper's `provide` without one,
    ///   or whose size is not flickd's layout (a bug: the document is not shown).
    func provideDocument(_ declared: ControlCommand.Provide, pool: Int32?,
                         caller: ControlServer.Caller) throws(ControlError) -> ControlProviderStatus {
        guard let documents, documents.isHelper(caller) else {
            throw .badField(command: "provide", field: "document", expected: "none: only flickd-render's own connection declares a document")
        }
        guard let document = declared.document else {
            throw .missingField(command: "provide", field: "document")
        }
        let pages: [Content.Page], links: DocumentLinks
        do {
            (pages, links) = try documents.arguments.layOut(document, declared: PixelSize(width: declared.width, height: declared.height))
        } catch {
            documents.refused(reason: "layoutMismatch", message: error.message, at: clock())
            throw .failed(error.message)
        }
        let status = try providers.provide(declared, pool: pool, caller: caller, document: (documents.path, pages, links))
        documents.provided(pages: pages.count, at: clock())
        return status
    }

    /// `documentError`: the helper cannot show its document. Only its own connection may say it.
    /// - Throws: `unknownCommand` for any other connection, as before documents.
    public func documentError(_ failure: ControlDocumentFailure, caller: ControlServer.Caller) throws(ControlError) {
        guard let documents, documents.isHelper(caller) else { throw .unknownCommand("documentError") }
        documents.refused(reason: failure.reason, message: failure.message, at: clock())
    }

    /// `links`: the helper found these links on a page it drew; a tap on one follows it from the
    /// next wake-up on. Only its own connection may say it.
    /// - Throws: `unknownCommand` for any other connection, as before documents.
    public func documentLinks(page: Int, links: [DocumentLink], caller: ControlServer.Caller) throws(ControlError) {
        guard let documents, documents.isHelper(caller) else { throw .unknownCommand("links") }
        guard let content = helperSession?.content else { return }
        let before = content.links.areas.count
        content.links.add(page: page, links: links)
        if before < DocumentLinks.limit, content.links.areas.count == DocumentLinks.limit {
            logger.warning("document \(documents.path): more than \(DocumentLinks.limit) links; the rest are not followed")
        }
    }

    /// The fallback (the placeholder) instead of the document at `path`, which will not show.
    private func showFallback(instead path: String, because why: String) {
        contentError = "\(path): \(why)"
        if let caller = documents?.caller { providers.release(caller) }
        guard let screen else { return }
        do {
            let fallback = try placeholder(view: screen.viewPixels, reason: "instead of \(path), which cannot be shown")
            try present(fallback.content, name: fallback.name)
        } catch {
            logger.report(.error, "content: the fallback cannot be shown: ", error)
        }
    }
}
