import Switchyard
import Testing

@Suite struct DataImportProgressTests {
    static func reading(_ bytes: Int, of total: Int) -> DataImportProgress {
        DataImportProgress(
            phase: .reading, file: "d/product.book.json", bytesRead: bytes, totalBytes: total, documentsWritten: 0,
            totalDocuments: 0)
    }

    static func writing(_ documents: Int, of total: Int, bytes: Int) -> DataImportProgress {
        DataImportProgress(
            phase: .writing, file: "d/product.book.json", bytesRead: bytes, totalBytes: bytes,
            documentsWritten: documents, totalDocuments: total)
    }

    @Test func theBarFillsWithReadingThenWriting() {
        #expect(
            Self.reading(5_000_000, of: 10_000_000).bar(width: 10)
                == "[##--------]  25% reading 5.0 of 10.0 MB (d/product.book.json)")
        #expect(
            Self.writing(100, of: 100, bytes: 10).bar(width: 10)
                == "[##########] 100% wrote 100 of 100 documents (d/product.book.json)")
        #expect(
            Self.writing(50, of: 100, bytes: 10).line == "import: 75% wrote 50 of 100 documents (d/product.book.json)")
    }

    @Test func aLogGetsALinePerTenthAndTheEnd() {
        var meter = DataImportProgressMeter(isTerminal: false, threshold: 1_000)
        let total = 10_000
        let texts =
            stride(from: 500, through: total, by: 500).compactMap { meter.text(for: Self.reading($0, of: total)) }
            + [
                meter.text(for: Self.writing(60, of: 100, bytes: total)),
                meter.text(for: Self.writing(100, of: 100, bytes: total)),
            ]
            .compactMap { $0 }
        #expect(texts.count == 5 + 1 + 1)
        #expect(texts.first == "import: 10% reading 0.0 of 0.0 MB (d/product.book.json)\n")
        #expect(texts.last == "import: 100% wrote 100 of 100 documents (d/product.book.json)\n")
        #expect(meter.text(for: Self.writing(100, of: 100, bytes: total)) == nil)
    }

    @Test func aTerminalRedrawsAtMostEveryIntervalAndEndsTheLine() {
        var meter = DataImportProgressMeter(isTerminal: true, threshold: 1_000, interval: .milliseconds(100))
        let start = ContinuousClock.now
        let first = meter.text(for: Self.reading(4_000, of: 10_000), now: start)
        #expect(first?.hasPrefix("\r[######-") == true && first?.hasSuffix("\u{1B}[K") == true)
        #expect(meter.text(for: Self.reading(2_000, of: 10_000), now: start + .milliseconds(50)) == nil)
        #expect(meter.text(for: Self.reading(3_000, of: 10_000), now: start + .milliseconds(150)) != nil)
        let last = meter.text(for: Self.writing(10, of: 10, bytes: 10_000), now: start + .milliseconds(160))
        #expect(last?.hasSuffix("\n") == true)
    }

    @Test func smallImportsShowNothing() {
        var meter = DataImportProgressMeter(isTerminal: false)
        #expect(meter.text(for: Self.writing(10, of: 10, bytes: 999_999)) == nil)
    }
}
