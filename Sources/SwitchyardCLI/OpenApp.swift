import Switchyard

/// An app opened by a command, with the data directory's lock it holds until `stop()`.
struct OpenApp {
    let app: SwitchyardApp
    let lock: DataDirectoryLock

    /// Stops the app, then lets the lock go (kept alive explicitly: a value may be released after its last use).
    func stop() async {
        await app.stop()
        withExtendedLifetime(lock) {}
    }
}
