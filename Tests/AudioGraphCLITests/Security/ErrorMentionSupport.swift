import Testing

/// `expectError`, and that stderr also names each of `mentions`: the other JSON path of a conflict, what kind
/// of file was refused, the word a message must use.
func expectError(_ result: CLIResult, exit status: Int32, at location: String, mentioning mentions: [String],
                 sourceLocation: SourceLocation = #_sourceLocation) {
    expectError(result, exit: status, at: location, sourceLocation: sourceLocation)
    for mention in mentions {
        #expect(result.stderr.contains(mention), "stderr should name \"\(mention)\"\n\(result)", sourceLocation: sourceLocation)
    }
}
