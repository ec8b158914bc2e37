import Foundation

/// `<data-dir>/build.json`: the last build `serve --watch` ran. The supervisor writes it; the server it runs
/// reads it for the admin API and the dashboard, which show a failed build's errors while the previous code
/// keeps serving.
package struct BuildStatus: Codable, Sendable, Equatable {
    package enum State: String, Codable, Sendable {
        case building, failed, succeeded
    }

    package var state: State
    package var time: Date
    /// The compiler's errors of a failed build (empty otherwise).
    package var output: String

    package static let file = "build.json"

    package init(state: State, time: Date = Date(), output: String = "") {
        self.state = state
        self.time = time
        self.output = output
    }

    /// The status in `dataDirectory`; nil when no watching supervisor has built there (or the file is unreadable).
    package static func read(dataDirectory: String) -> BuildStatus? {
        guard let data = FileManager.default.contents(atPath: "\(dataDirectory)/\(file)") else { return nil }
        return try? decoder.decode(BuildStatus.self, from: data)
    }

    /// Replaces the file atomically, so a reader never sees half of it.
    package func write(dataDirectory: String) throws {
        try FileManager.default.createDirectory(atPath: dataDirectory, withIntermediateDirectories: true)
        try Self.encoder.encode(self).write(to: URL(fileURLWithPath: "\(dataDirectory)/\(Self.file)"), options: .atomic)
    }

    private static var encoder: JSONEncoder {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        encoder.outputFormatting = [.sortedKeys]
        return encoder
    }

    private static var decoder: JSONDecoder {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return decoder
    }
}
