import FlickDocument
import Glibc

// flickd-render: parses and draws a document's tiles for flickd (docs/documents.md). flickd
// starts it; everything it does is RenderHelper's, so the tests drive the same code.
exit(RenderHelper.main(arguments: Array(CommandLine.arguments.dropFirst())).rawValue)
