import Foundation
import Switchyard

extension TestApp {
    /// Runs a recording (`switchyard record` writes one) through this app's functions, against a scratch copy
    /// of the recorded data (this app's own data and triggers are left alone), and compares each run with the
    /// recorded one. `function` runs instead of the trigger's own (it must be a registered database-trigger
    /// function), to check how a change behaves on real events:
    ///
    /// ```swift
    /// let report = try await app.replay(URL(fileURLWithPath: "Recordings/books.jsonl"))
    /// #expect(report.differences.isEmpty, "\(report.summary)")
    /// ```
    /// - Throws: `TestAppError` when the file is not a recording, the app has no such trigger or function.
    public func replay(_ file: URL, function: String? = nil) async throws -> ReplayReport {
        try await replay(file.path, function: function)
    }

    /// `replay(_:function:)` for a file path.
    public func replay(_ path: String, function: String? = nil) async throws -> ReplayReport {
        let recording: TriggerRecording
        do {
            recording = try TriggerRecording(contentsOf: path)
        } catch {
            throw TestAppError(error.description)
        }
        let replay = TriggerReplay(configuration: app.configuration, registry: app.registry)
        do {
            _ = try replay.definition(for: recording, function: function)
        } catch {
            throw TestAppError(error.description)
        }
        return try await replay.run(recording, function: function)
    }

    /// Records what `trigger` received in this app so far (within `since` and `until`, when given) to `file`, as
    /// `switchyard record` does: to make a recording in a test, or check one.
    /// - Throws: `TestAppError` when there is no such database trigger or the file cannot be written.
    public func record(trigger: String, since: Date? = nil, until: Date? = nil, to file: URL) async throws {
        guard let definition = app.configuration.triggers.first(where: { $0.name == trigger }) else {
            let names = app.configuration.triggers.map { "'\($0.name)'" }.joined(separator: ", ")
            throw TestAppError("no trigger named '\(trigger)' (the app's triggers: \(names.isEmpty ? "none" : names))")
        }
        try await app.awaitIdle()
        await app.invocations.flush()
        let recorder = TriggerRecorder(store: app.store, invocations: app.invocations, outbox: app.outboxLog)
        do {
            try await recorder.record(definition, since: since, until: until).write(to: file.path)
        } catch let failure as TriggerRecorder.Failure {
            throw TestAppError(failure.description)
        } catch let failure as TriggerRecording.FileError {
            throw TestAppError(failure.description)
        }
    }
}
