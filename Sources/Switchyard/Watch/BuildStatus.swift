import Foundation

/// `<data-dir>/build.json`: the last build `serve --watch` ran. The supervisor writes it; the server it runs
/// reads it for the admin API and the dashboard, which show a failed build's errors while the previous code
/// keeps serving.
public struct BuildStatus: Codable, Sendable, Equatable {
    public enum State: String, Codable, Sendable {
        case building, failed, succeeded
    }

    public var state: State
    public var time: Date
    /// The compiler's errors of a failed build (empty otherwise).
    public var output: String

    public static let file = "build.json"

    public init(state: State, time: Date = Date(), output: String = "") {
        self.state = state
        self.time = time
        self.output = output
    }

    /// The status in `dataDirectory`; nil when no watching supervisor has built there (or the file is unreadable).
    public static func read(dataDirectory: String) -> BuildStatus? {
        guard let data = FileManager.default.contents(atPath: "\(dataDirectory)/\(file)") else { return nil }
        return try? decoder.decode(BuildStatus.self, from: data)
    }

    /// Replaces the file atomically, so a reader never sees half of it.
    public func write(dataDirectory: String) throws {
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
