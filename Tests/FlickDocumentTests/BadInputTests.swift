import FlickDocumentSamples
import Foundation
import Glibc
import Testing

/// Every kind of bad document, each made in the test, given to the built helper as flickd gives
/// it: one `documentError` line with the right reason, exit 65, within a bounded time — the helper
/// never hangs and never crashes on it (a crash would be a signal, not 65).
@Suite(.serialized) struct BadInputTests {
    /// Runs the helper on `name` (written from `bytes`) and returns its one line, decoded.
    func refusal(_ name: String, _ bytes: [UInt8], arguments: [String] = ["--page-width", "1280", "--gap", "16"],
                 within limit: Duration = .seconds(30)) throws -> [String: Any] {
        let scratch = try Scratch()
        let path = try scratch.write(name, bytes)
        let helper = try HelperProcess(documents: [path], arguments: arguments)
        let line = try helper.line(timeout: limit).text
        #expect(try helper.exit(timeout: limit) == 65, "\(name): \(line)")
        let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
        #expect(object?["cmd"] as? String == "documentError", "\(line)")
        #expect(object?["id"] as? Int == 1)
        #expect(object?["file"] as? String == name)
        #expect((object?["message"] as? String)?.hasPrefix(name + ": ") == true, "\(line)")
        return object ?? [:]
    }

    @Test func anEncryptedPDFNeedsAPassword() throws {
        #expect(try refusal("secret.pdf", SamplePDF.encrypted())["reason"] as? String == "encrypted")
    }

    @Test func aTruncatedPDFIsDamaged() throws {
        let scratch = try Scratch()
        #expect(SamplePDF.write(to: scratch.file("menu.pdf"), pages: Array(repeating: (595.28, 841.89), count: 6)))
        let whole = try scratch.read("menu.pdf")
        #expect(try refusal("menu.pdf", Array(whole.prefix(whole.count / 2)))["reason"] as? String == "truncated")
        #expect(try refusal("menu.pdf", Array(whole.prefix(40)))["reason"] as? String == "truncated")
    }

    @Test func aPageOneByAHundredThousandPointsIsTooLarge() throws {
        let scratch = try Scratch()
        #expect(SamplePDF.write(to: scratch.file("long.pdf"), pages: [(595, 842), (595, 842), (1, 100_000)]))
        let error = try refusal("long.pdf", try scratch.read("long.pdf"))
        #expect(error["reason"] as? String == "pageTooLarge")
        #expect(error["page"] as? Int == 3)
        #expect(error["message"] as? String
                == "long.pdf: page 3 is 1 × 100000 pt; laid out 1280 px wide it would be 128000000 px long (at most 16777216)")
    }

    @Test func tenThousandPagesAreTooMany() throws {
        let error = try refusal("huge.pdf", SamplePDF.manyPages(10_000), arguments: ["--page-width", "1280", "--max-pages", "2000"])
        #expect(error["reason"] as? String == "tooManyPages")
        #expect((error["message"] as? String)?.contains("10000 pages (at most 2000") == true)
        // Allowed that many, they still do not fit 2^24 px laid out one under another.
        let long = try refusal("huge.pdf", SamplePDF.manyPages(10_000), arguments: ["--page-width", "1280", "--max-pages", "10000"])
        #expect(long["reason"] as? String == "tooManyPages")
        #expect(long["page"] as? Int == 9265)  // 1811 px each, no gap: page 9265 ends past 16777216
    }

    @Test func aPDFWithoutPagesIsRefused() throws {
        let empty = SamplePDF.handBuilt(["<< /Type /Catalog /Pages 2 0 R >>", "<< /Type /Pages /Kids [] /Count 0 >>"])
        let error = try refusal("empty.pdf", empty)
        #expect(error["reason"] as? String == "noPages")
        #expect(error["message"] as? String == "empty.pdf: the document has no pages")
    }

    @Test func aFileNamedPDFThatIsNotOneIsNotADocument() throws {
        #expect(try refusal("menu.pdf", Array("Dear customer, our menu changes daily.\n".utf8))["reason"] as? String == "notADocument")
        #expect(try refusal("menu.pdf", [])["reason"] as? String == "notADocument")
        var png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        png += [UInt8](repeating: 0, count: 100)
        #expect(try refusal("menu.pdf", png)["reason"] as? String == "notADocument")
    }

    @Test func billionLaughsAreTooComplex() throws {
        #expect(try refusal("laughs.svg", Array(SampleSVG.entityLaughs().utf8))["reason"] as? String == "tooComplex")
        #expect(try refusal("uses.svg", Array(SampleSVG.useLaughs().utf8))["reason"] as? String == "tooComplex")
    }

    @Test func aFileOverAQuarterOfTheMemoryLimitIsOutOfMemory() throws {
        let scratch = try Scratch()
        let path = try scratch.write("huge.pdf", Array("%PDF-1.4\n".utf8))
        // 60 MB without writing them: a sparse file, refused by its size before it is read.
        #expect(truncate(path, 60 << 20) == 0)
        let helper = try HelperProcess(documents: [path], arguments: ["--page-width", "1280", "--memory-mb", "200"])
        let line = try helper.line().text
        #expect(try helper.exit() == 65)
        let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
        #expect(object?["reason"] as? String == "outOfMemory", "\(line)")
        #expect((object?["message"] as? String)?.contains("content.render_memory_mb") == true)
    }

    @Test func anSVGThatIsNotXMLIsNotADocument() throws {
        let broken = "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"10\" height=\"10\"><rect width=\"5\" height=\"5\""
        #expect(try refusal("plan.svg", Array(broken.utf8))["reason"] as? String == "notADocument")
    }
}
