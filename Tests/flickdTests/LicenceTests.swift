import Foundation
import Testing

/// The project's licence (issue 36): MIT in `LICENSE`, the Debian package's `copyright` in DEP-5
/// form saying the same with the same text, and the README naming it.
@Suite struct LicenceTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    static func read(_ path: String) throws -> String {
        try String(contentsOf: root.appendingPathComponent(path), encoding: .utf8)
    }

    /// A DEP-5 file's paragraphs: each a list of (field, value), a value's continuation lines
    /// joined with "\n" and " ." read as an empty line, as the format defines.
    static func paragraphs(_ text: String) -> [[(String, String)]] {
        var result: [[(String, String)]] = [], current: [(String, String)] = []
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.trimmingCharacters(in: .whitespaces).isEmpty {
                if !current.isEmpty { result.append(current) }
                current = []
            } else if line.first == " " || line.first == "\t" {
                let body = line.dropFirst()
                let text = body == "." ? "" : String(body)
                if var last = current.popLast() {
                    last.1 += "\n" + text
                    current.append(last)
                }
            } else if let colon = line.firstIndex(of: ":") {
                current.append((String(line[..<colon]),
                                String(line[line.index(after: colon)...]).trimmingCharacters(in: .whitespaces)))
            } else {
                current.append(("?", String(line)))
            }
        }
        if !current.isEmpty { result.append(current) }
        return result
    }

    static func field(_ name: String, in paragraph: [(String, String)]) -> String? {
        paragraph.first { $0.0 == name }?.1
    }

    @Test func theLicenceIsMIT() throws {
        let licence = try Self.read("LICENSE")
        #expect(licence.hasPrefix("MIT License\n\nCopyright (c) 2026 the flickd maintainers\n"))
        #expect(licence.contains("Permission is hereby granted, free of charge"))
        #expect(licence.contains("THE SOFTWARE IS PROVIDED \"AS IS\", WITHOUT WARRANTY OF ANY KIND"))
    }

    @Test func theDebianCopyrightIsDEP5AndSaysMITWithTheSameText() throws {
        let text = try Self.read("packaging/deb/copyright")
        let paragraphs = Self.paragraphs(text)
        // The header, flickd's own files, the Wayland protocol glue (issue 37), the Expat text.
        try #require(paragraphs.count == 4)
        #expect(paragraphs.allSatisfy { $0.allSatisfy { $0.0 != "?" } }, "a line that is neither a field nor a continuation")
        let header = paragraphs[0]
        #expect(Self.field("Format", in: header) == "https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/")
        #expect(Self.field("Upstream-Name", in: header) == "flickd")
        let files = paragraphs[1]
        #expect(Self.field("Files", in: files) == "*")
        #expect(Self.field("Copyright", in: files)?.contains("flickd maintainers") == true)
        // Debian's short name for the MIT licence is "Expat".
        #expect(Self.field("License", in: files) == "Expat")
        // The generated Wayland protocol code is compiled in: named with its notices and its
        // licence, the X.org text of MIT as each protocol's XML gives it.
        let wayland = paragraphs[2]
        #expect(Self.field("Files", in: wayland)?.contains("Sources/CWaylandProtocols/") == true)
        #expect(Self.field("Copyright", in: wayland)?.contains("Collabora") == true)
        let waylandLicence = try #require(Self.field("License", in: wayland))
        #expect(waylandLicence.hasPrefix("MIT-X.org\nPermission is hereby granted"))
        #expect(waylandLicence.contains("(including the next\nparagraph) shall be included"))
        let standalone = paragraphs[3]
        let body = try #require(Self.field("License", in: standalone))
        #expect(body.hasPrefix("Expat\n"))
        // The same text as LICENSE, from "Permission" on, line for line.
        let licence = try Self.read("LICENSE")
        let permission = try #require(licence.range(of: "Permission is hereby granted"))
        let expected = licence[permission.lowerBound...].trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(body.dropFirst("Expat\n".count) == expected)
        // What the binaries carry statically linked is named with its licence.
        let comment = try #require(Self.field("Comment", in: header))
        for name in ["Swift runtime, standard library and Foundation", "ICU", "Unicode License", "Runtime Library Exception", "swift-argument-parser", "toml++", "Apache License 2.0"] {
            #expect(comment.contains(name), "\(name) missing from the copyright's comment")
        }
    }

    /// flickd-render links poppler (GPL): the README and the package say the helper as shipped is
    /// under the GPL's terms while flickd stays MIT (issue 38).
    @Test func theDocumentHelpersLicencesAreSaid() throws {
        let readme = try Self.read("README.md")
        let section = try #require(readme.range(of: "\n### Licences of the document helper\n"))
        let rest = readme[section.upperBound...]
        for name in ["poppler", "librsvg", "cairo", "libseccomp", "GPL-2.0-or-later", "stays MIT"] {
            #expect(rest.contains(name), "\(name) missing from the README's note on flickd-render")
        }
        let header = try #require(Self.paragraphs(try Self.read("packaging/deb/copyright")).first)
        let comment = try #require(Self.field("Comment", in: header))
        for name in ["flickd-render", "poppler", "librsvg", "cairo", "libseccomp", "GNU General Public License", "/usr/share/common-licenses/GPL-2"] {
            #expect(comment.contains(name), "\(name) missing from the copyright's comment")
        }
        #expect(try Self.read("man/flickd-render.8").contains("GNU GPL"))
    }

    @Test func theReadmeNamesTheLicence() throws {
        let readme = try Self.read("README.md")
        let section = try #require(readme.range(of: "\n## Licence\n"))
        let rest = readme[section.upperBound...]
        #expect(rest.contains("MIT licence (`LICENSE`)"))
        #expect(rest.contains("DEP-5"))
    }
}
