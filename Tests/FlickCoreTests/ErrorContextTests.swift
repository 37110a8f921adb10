import Testing
@testable import FlickCore

/// One shape of error, rendered one way (issue 18): where, then what.
@Suite struct ErrorContextTests {
    @Test func whereThenWhat() {
        #expect(ErrorContext(source: "flickd.toml", line: 3, key: "scroll.spring_mass", expected: "a number greater than 0",
                             found: "-1").rendered == "flickd.toml:3: scroll.spring_mass: expected a number greater than 0, got -1")
        #expect(ErrorContext(source: "a.evemu", line: 0, reason: "no such file").rendered == "a.evemu: no such file")
        #expect(ErrorContext(key: "x", reason: "too far", expected: "at most 3").rendered == "x: too far; expected at most 3")
        #expect(ErrorContext(reason: "the daemon closed the connection").rendered == "the daemon closed the connection")
        #expect(ErrorContext(key: "", found: "7").rendered == "(got 7)")
        let fields = ErrorContext(source: "f", line: 2, key: "k", expected: "e", found: "g").fields
        #expect(fields == ["ERROR_SOURCE": "f", "ERROR_LINE": "2", "ERROR_KEY": "k", "ERROR_EXPECTED": "e", "ERROR_FOUND": "g"])
    }

    @Test func modelErrorsSpeakTheSameWay() {
        let e = ScrollViewError.invalidTunable(name: "spring_mass", value: -1, expected: "a finite number greater than 0")
        #expect(e.description == "spring_mass: expected a finite number greater than 0, got -1")
        #expect(e.kind == .data && ErrorKind.config.rawValue == 78 && ErrorKind.usage.rawValue == 64)
    }
}
