import DocumentStore
import Switchyard
import Testing

@Suite struct DataFileNameTests {
    @Test func theFirstDotEndsTheDatabaseAndSlashesAreEscaped() {
        let cases: [(Namespace, String)] = [
            (Namespace(database: "product", collection: "book"), "product.book.json"),
            (Namespace(database: "product", collection: "book.archive"), "product.book.archive.json"),
            (Namespace(database: "a", collection: "x/y%2F"), "a.x%2Fy%252F.json"),
        ]
        for (namespace, file) in cases {
            #expect(DataFileName.file(for: namespace) == file)
            #expect(DataFileName.namespace(ofFile: file) == namespace)
        }
        for other in ["collections.json", "notes.json", ".book.json", "product..json", "product.book.txt"] {
            #expect(DataFileName.namespace(ofFile: other) == nil, "\(other)")
        }
    }
}
