import Foundation

/// How far an import has come: files are read (and parsed) first, then every collection is written in
/// one transaction. Reported to `DataImport.import`'s `progress` closure after each file read and, once the
/// transaction committed, for each collection written.
package struct DataImportProgress: Sendable, Equatable {
    package enum Phase: Sendable, Equatable {
        case reading
        case writing
    }

    package var phase: Phase
    /// The file just read, or the collection's file just written.
    package var file: String
    package var bytesRead: Int
    package var totalBytes: Int
    package var documentsWritten: Int
    package var totalDocuments: Int

    package init(
        phase: Phase, file: String, bytesRead: Int, totalBytes: Int, documentsWritten: Int, totalDocuments: Int
    ) {
        self.phase = phase
        self.file = file
        self.bytesRead = bytesRead
        self.totalBytes = totalBytes
        self.documentsWritten = documentsWritten
        self.totalDocuments = totalDocuments
    }

    /// Reading counts the first half of the work, writing the second.
    package var fraction: Double {
        switch phase {
        case .reading: totalBytes == 0 ? 0.5 : 0.5 * Double(bytesRead) / Double(totalBytes)
        case .writing: totalDocuments == 0 ? 1 : 0.5 + 0.5 * Double(documentsWritten) / Double(totalDocuments)
        }
    }

    /// What is being done, for both renderings: `reading 12.5 of 40.0 MB` or `wrote 30000 of 100000 documents`.
    package var status: String {
        switch phase {
        case .reading:
            "reading \(Self.megabytes(bytesRead)) of \(Self.megabytes(totalBytes)) MB (\(file))"
        case .writing:
            "wrote \(documentsWritten) of \(totalDocuments) documents (\(file))"
        }
    }

    /// One terminal line, redrawn in place: `[#########-----------]  45% reading …`.
    package func bar(width: Int = 30) -> String {
        let filled = min(width, max(0, Int((fraction * Double(width)).rounded(.down))))
        let percent = Int((fraction * 100).rounded(.down))
        let bar = String(repeating: "#", count: filled) + String(repeating: "-", count: width - filled)
        return "[\(bar)] \(String(percent).leftPadded(to: 3))% \(status)"
    }

    /// A plain line for logs: `import: 45% reading …`.
    package var line: String {
        "import: \(Int((fraction * 100).rounded(.down)))% \(status)"
    }

    private static func megabytes(_ bytes: Int) -> String {
        String(format: "%.1f", Double(bytes) / 1_000_000)
    }
}

/// Decides when progress is worth showing: a terminal redraws its bar at most every `interval`; a log
/// (standard error that is not a terminal) gets a plain line each time the import passes another tenth.
/// Small imports (under `threshold` bytes) show nothing.
package struct DataImportProgressMeter: Sendable {
    package var isTerminal: Bool
    package var threshold: Int
    package var interval: Duration
    private var lastTenth = 0
    private var lastDraw: ContinuousClock.Instant?
    private var finished = false

    package init(isTerminal: Bool, threshold: Int = 1_000_000, interval: Duration = .milliseconds(100)) {
        self.isTerminal = isTerminal
        self.threshold = threshold
        self.interval = interval
    }

    /// The text to write to standard error for this report, if any (a terminal's redraws the line).
    package mutating func text(for progress: DataImportProgress, now: ContinuousClock.Instant = .now) -> String? {
        guard progress.totalBytes >= threshold, !finished else { return nil }
        finished = progress.phase == .writing && progress.documentsWritten == progress.totalDocuments
        if isTerminal {
            if !finished, let lastDraw, now - lastDraw < interval { return nil }
            lastDraw = now
            // Carriage return, the bar, then erase what a longer earlier line left.
            return "\r" + progress.bar() + "\u{1B}[K" + (finished ? "\n" : "")
        }
        let tenth = Int((progress.fraction * 10).rounded(.down))
        guard tenth > lastTenth || finished else { return nil }
        lastTenth = tenth
        return progress.line + "\n"
    }
}

extension String {
    fileprivate func leftPadded(to width: Int) -> String {
        String(repeating: " ", count: max(0, width - count)) + self
    }
}
