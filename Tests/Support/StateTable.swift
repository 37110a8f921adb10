import FlickCore
import Foundation

/// A state machine's table as its page in docs/ writes it, read back so a test can hold the code
/// to it: the doc is the spec, and the two must not disagree (docs/ARCHITECTURE.md, "State machines").
///
/// The table follows a heading `### NAME` (the `Transition.Machine`'s name). Its first row names
/// the events (`state \ event | down | move | …`); each further row is a state. A cell is `bug`
/// (an invalid pair: logged, the state stays), `—` (the state stays), or one or more `→ STATE`
/// (with guards and actions in words around them, which the reader skips), possibly beside a
/// `—` when the event leaves the state alone in some cases. Names are read up to the first
/// character that is not a letter, digit or underscore, so `move > slop` is the column `move`.
public struct StateTable: Sendable {
    /// One possible step: (state, event) → state.
    public struct Edge: Hashable, Sendable, CustomStringConvertible {
        public var from: String
        public var event: String
        public var to: String
        public init(_ from: String, _ event: String, _ to: String) {
            self.from = from
            self.event = event
            self.to = to
        }
        public var description: String { "\(from) → \(event) → \(to)" }
    }

    /// The machine's name.
    public let machine: String
    /// The states, in the table's order.
    public private(set) var states: [String] = []
    /// The events, in the table's order (a column split by a guard appears once).
    public private(set) var events: [String] = []
    /// Every `→` of the table.
    public private(set) var edges: Set<Edge> = []
    /// (state, event) pairs that may leave the state as it is.
    public private(set) var stays: Set<[String]> = []
    /// (state, event) pairs that are bugs.
    public private(set) var bugs: Set<[String]> = []

    /// A table that could not be read.
    public struct Problem: Error, CustomStringConvertible {
        public var description: String
    }

    /// Reads the table under `### machine` in `markdown`.
    public init(machine: String, markdown: String) throws {
        self.machine = machine
        let lines = markdown.components(separatedBy: "\n")
        guard let heading = lines.firstIndex(where: { $0.hasPrefix("### ") && Self.name(in: $0.dropFirst(4)) == machine }) else {
            throw Problem(description: "no heading '### \(machine)'")
        }
        let rows = lines[(heading + 1)...].drop { !$0.hasPrefix("|") }.prefix { $0.hasPrefix("|") }
        guard rows.count >= 3 else { throw Problem(description: "no table under '### \(machine)'") }
        func cells(_ row: String) -> [String] {
            row.split(separator: "|", omittingEmptySubsequences: false).dropFirst().dropLast()
                .map { $0.trimmingCharacters(in: .whitespaces) }
        }
        let columns = cells(rows[rows.startIndex]).dropFirst().map { Self.name(in: Substring($0)) }
        for column in columns where !events.contains(column) { events.append(column) }
        for row in rows.dropFirst(2) {
            let parts = cells(row)
            guard parts.count == columns.count + 1 else {
                throw Problem(description: "\(machine): the row '\(row)' has \(parts.count - 1) cells for \(columns.count) columns")
            }
            let state = Self.name(in: Substring(parts[0]))
            states.append(state)
            for (event, cell) in zip(columns, parts.dropFirst()) {
                if cell.hasPrefix("bug") {
                    bugs.insert([state, event])
                    continue
                }
                var targets = 0
                var rest = Substring(cell)
                while let arrow = rest.firstIndex(of: "→") {
                    rest = rest[rest.index(after: arrow)...]
                    let target = Self.name(in: rest.drop { $0 == " " })
                    if !target.isEmpty {
                        edges.insert(Edge(state, event, target))
                        targets += 1
                    }
                }
                if cell.contains("—") || targets == 0 { stays.insert([state, event]) }
            }
        }
        for edge in edges where !states.contains(edge.to) {
            throw Problem(description: "\(machine): \(edge) goes to a state the table has no row for")
        }
    }

    /// Reads the table from a page of this checkout's docs folder (`input.md`, …).
    public static func load(_ machine: Transition.Machine, from file: String) throws -> StateTable {
        try StateTable(machine: machine.rawValue, markdown: try String(contentsOfFile: docs + "/" + file, encoding: .utf8))
    }

    /// The checkout's docs folder.
    public static let docs = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("docs").path

    /// What is wrong between the table and the transitions a test run saw: a transition the table
    /// does not allow, an invalid pair the table does not call a bug, and an edge of the table no
    /// transition took (every edge must have a test). Empty when they agree.
    public func disagreements(with seen: [Transition]) -> [String] {
        var problems: [String] = []
        var taken: Set<Edge> = []
        for t in seen where t.machine.rawValue == machine {
            if t.isInvalid {
                if !bugs.contains([t.from, t.event]) { problems.append("\(t): the table does not call it a bug") }
                continue
            }
            let edge = Edge(t.from, t.event, t.to)
            taken.insert(edge)
            if !edges.contains(edge) && !(t.from == t.to && stays.contains([t.from, t.event])) {
                problems.append("\(machine): \(edge) happened, and the table does not have it")
            }
        }
        for edge in edges.subtracting(taken).sorted(by: { $0.description < $1.description }) where edge.from != edge.to {
            problems.append("\(machine): the table's \(edge) was never taken")
        }
        return problems
    }

    /// The edges of the Mermaid `stateDiagram` blocks of a docs file (`A --> B: event …`, start
    /// and self edges left out), to hold the diagrams to the table.
    public static func diagramEdges(inDocsFile file: String, states: [String]) throws -> Set<Edge> {
        let text = try String(contentsOfFile: docs + "/" + file, encoding: .utf8)
        var edges: Set<Edge> = []
        for line in text.components(separatedBy: "\n") {
            let parts = line.trimmingCharacters(in: .whitespaces).components(separatedBy: " --> ")
            guard parts.count == 2, states.contains(parts[0]) else { continue }
            let rest = parts[1].split(separator: ":", maxSplits: 1)
            guard rest.count == 2 else { continue }
            let to = name(in: rest[0])
            // `catching --> idle: lift, cancel (…)`: several events before a guard or actions.
            var label = Substring(rest[1])
            for stop in [" /", " [", " ("] {
                if let r = label.range(of: stop) { label = label[..<r.lowerBound] }
            }
            for event in label.split(separator: ",").map({ name(in: $0.drop { $0 == " " }) }) where to != parts[0] {
                edges.insert(Edge(parts[0], event, to))
            }
        }
        return edges
    }

    /// The leading name of a cell: letters, digits and underscores.
    static func name(in text: Substring) -> String {
        String(text.drop { $0 == " " }.prefix { $0.isLetter || $0.isNumber || $0 == "_" })
    }
}
