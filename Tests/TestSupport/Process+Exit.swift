import Foundation

extension Process {
    /// Waits for the process to end, for at most `timeout`, then kills it (SIGKILL) and waits as long again; true
    /// when it ended by itself. A child that ignores its stop then fails the test that started it instead of
    /// hanging the whole run, as `waitUntilExit()` would. It polls rather than blocks, so a test thread waiting
    /// here never waits past the deadline whatever Foundation's own exit monitoring does.
    @discardableResult
    public func waitForExit(killingAfter timeout: TimeInterval = 60) -> Bool {
        if waitWhileRunning(until: Date().addingTimeInterval(timeout)) { return true }
        kill(processIdentifier, SIGKILL)
        _ = waitWhileRunning(until: Date().addingTimeInterval(timeout))
        return false
    }

    /// The exit status once the process ended, or nil when it still runs after `waitForExit`'s two deadlines.
    public func statusAfterExit(killingAfter timeout: TimeInterval = 60) -> Int32? {
        waitForExit(killingAfter: timeout)
        return isRunning ? nil : terminationStatus
    }

    private func waitWhileRunning(until deadline: Date) -> Bool {
        while isRunning {
            if Date() >= deadline { return false }
            usleep(5_000)
        }
        return true
    }
}
