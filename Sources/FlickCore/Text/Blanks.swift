extension StringProtocol {
    /// Without the spaces and tabs at both ends: the blanks of TOML and of evemu's text lines
    /// (Foundation's `.whitespaces` would also take Unicode spaces, which these formats keep).
    public func trimmingBlanks() -> SubSequence {
        let isBlank = { (c: Character) in c == " " || c == "\t" }
        guard let first = firstIndex(where: { !isBlank($0) }), let last = lastIndex(where: { !isBlank($0) }) else {
            return self[endIndex...]
        }
        return self[first...last]
    }
}
