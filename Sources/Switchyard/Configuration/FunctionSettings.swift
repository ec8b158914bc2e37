import BSON

/// How a function may be called, from the `functions:` section of `triggers.yaml` (App Services'
/// `functions/config.json`). Functions not listed there get the defaults.
package struct FunctionSettings: Sendable, Equatable {
    /// A private function can be called by triggers and other functions, not by clients.
    package var isPrivate: Bool
    /// Run with full database access instead of the calling user's rules.
    package var runAsSystem: Bool
    /// A query expression over `%%user` / `%%request` that must match for a client call to be allowed;
    /// empty allows every call.
    package var canEvaluate: BSONDocument
    /// How long one run may take before it fails as timed out; nil uses the app's `functionTimeout`.
    package var timeout: Duration?

    package init(
        isPrivate: Bool = false, runAsSystem: Bool = false, canEvaluate: BSONDocument = [:], timeout: Duration? = nil
    ) {
        self.isPrivate = isPrivate
        self.runAsSystem = runAsSystem
        self.canEvaluate = canEvaluate
        self.timeout = timeout
    }
}
