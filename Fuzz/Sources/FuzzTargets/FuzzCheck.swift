/// Stops the process when a documented contract does not hold, so that libFuzzer records the
/// input as a crash: a wrong answer counts as much as a trap.
/// - Parameters:
///   - condition: what the API promises.
///   - message: what was seen instead.
func fuzzCheck(_ condition: Bool, _ message: @autoclosure () -> String,
               file: StaticString = #fileID, line: UInt = #line) {
    guard !condition else { return }
    fatalError("contract broken: \(message())", file: file, line: line)
}
