import DocumentStore

extension SwitchyardApp {
    /// The app's data access rules as `user`'s requests meet them (the client API's `mongodb-atlas` calls). When a
    /// rule reads `%%user.custom_data`, the user's custom data is read first: kept copies last only until the
    /// collection is next written, so a rule sees what the store holds now.
    nonisolated(nonsending) package func dataAccess(for user: FunctionUser) async throws -> UserDataAccess {
        let loaded = runtime.loaded
        var user = user
        if loaded.definition.rules.readsCustomUserData, user.kind == .normal {
            if let settings = loaded.definition.auth.customUserData, settings.enabled {
                user.customData = try await customUserDataCache.document(forUser: user.id, settings: settings)
            } else {
                user.customData = [:]
            }
        }
        return loaded.dataAccess(for: user)
    }

    /// Whether the app declares no data access rule at all, so that clients' `mongodb-atlas` requests are refused.
    package var hasNoDataAccessRules: Bool { configuration.definition.rules.isEmpty }
}
