import DocumentStore
import Foundation

extension TriggerRuntime {
    /// Resumes a suspended trigger: through `resume(trigger:from:)` while the runtime runs, else in its saved
    /// state only (the CLI, with the app stopped), so it starts from `point` when the app next starts.
    /// - Throws: `TriggerRuntimeError` when the trigger is unknown or not suspended.
    package func resumeSaved(trigger name: String, from point: TriggerResumePoint) async throws {
        if isRunning {
            try await resume(trigger: name, from: point)
            return
        }
        let definition = try definition(named: name)
        guard var state = try await ledger.loadStates()[name], state.identity == definition.identity,
            state.suspension != nil
        else {
            throw TriggerRuntimeError(code: .invalidState, message: "trigger '\(name)' is not suspended")
        }
        let logEnd = try await store.watch().startingPoint.sequence
        Self.move(&state, to: point, kind: definition.kind, logEnd: logEnd, now: configuration.clock.now())
        try await ledger.save(state)
    }

    /// Where a resumed trigger's saved progress starts, as `resume(trigger:from:)` moves it.
    static func move(
        _ state: inout TriggerState, to point: TriggerResumePoint, kind: TriggerDefinition.Kind, logEnd: Int64,
        now: Date
    ) {
        switch (point, kind) {
        case (.savedToken, _): break
        case (.afterFailedEvent, .database):
            if let id = state.suspension?.failedEventId, let token = ResumeToken(["_data": .string(id)]) {
                state.position = max(state.position ?? token.sequence, token.sequence)
            }
        case (.now, .database): state.position = logEnd
        case (.now, .scheduled): state.lastFireTime = now
        case (.afterFailedEvent, _), (.now, .authentication): break
        }
        state.suspension = nil
    }
}
