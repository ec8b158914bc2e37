import BSON

/// The trigger run or call a task works for: the id its invocation record gets. What the run does elsewhere is
/// stamped with it (the outbox's entries carry it as `invocation`), so a recording (`TriggerRecorder`) can tell
/// which messages a run sent. A function another one calls stays within its caller's run.
package enum FunctionRunScope {
    @TaskLocal package static var invocationId: ObjectId?
}
