import Switchyard

/// An app opened by a command, with the claim on its data directory it holds until `stop()`.
struct OpenApp {
    let app: SwitchyardApp
    let claim: DataDirectoryClaim

    /// Stops the app, then lets the lock go (kept alive explicitly: a value may be released after its last use).
    func stop() async {
        await app.stop()
        withExtendedLifetime(claim) {}
    }

    /// Stops the app of a command that failed before it did its work, removing the data directory when the
    /// command created it.
    func discard() async {
        await app.stop()
        claim.discard()
    }
}
