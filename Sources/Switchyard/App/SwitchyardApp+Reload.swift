import Foundation

extension SwitchyardApp {
    /// Applies a new configuration while the app runs: triggers added, removed or changed (a trigger whose
    /// identity — kind, database, collection — is unchanged keeps its resume token and misses no event), new
    /// values, function settings and authentication settings for every execution that starts afterwards, and
    /// the declared indexes the store does not have yet, and the log forwarders (one whose definition changed
    /// delivers what it holds first).
    /// Nothing changes when the configuration does not fit the app's functions.
    /// - Throws: `ConfigurationErrors` (nothing applied); a trigger runtime error when saving state failed.
    @discardableResult
    package func reload(_ new: AppConfiguration) async throws -> ConfigurationChange {
        let problems = registry.check(new.definition)
        guard problems.isEmpty else { throw ConfigurationErrors(problems) }
        let old = configuration
        try await store.makeIndexes(new.definition.indexes)
        try await triggers.apply(definitions: new.definition.triggers)
        await runtime.reload(new)
        current.withLock { $0 = new }
        return ConfigurationChange(from: old, to: new)
    }

    /// Loads the configuration in `directory` (as `open(directory:…)` does) and applies it with `reload(_:)`.
    @discardableResult
    package func reload(
        directory: String, environment: AppEnvironment? = nil,
        variables: [String: String] = ProcessInfo.processInfo.environment
    ) async throws -> ConfigurationChange {
        let new = try AppConfiguration.load(
            directory: directory, environment: environment ?? configuration.environment,
            registeredFunctions: registry.names, variables: variables)
        let trimmed = directory.hasSuffix("/") ? String(directory.dropLast()) : directory
        let file =
            trimmed.isEmpty || trimmed == "."
            ? AppConfiguration.triggersFile : "\(trimmed)/\(AppConfiguration.triggersFile)"
        let problems = registry.check(new.definition, file: file)
        guard problems.isEmpty else { throw ConfigurationErrors(problems) }
        return try await reload(new)
    }
}

/// What a reload changed, for the operator's log.
package struct ConfigurationChange: Sendable, Equatable, CustomStringConvertible {
    package var addedTriggers: [String]
    package var removedTriggers: [String]
    package var changedTriggers: [String]
    package var changedValues: [String]
    /// Function settings, authentication or anything else outside triggers and values.
    package var otherChanges: Bool

    init(from old: AppConfiguration, to new: AppConfiguration) {
        let before = Dictionary(old.definition.triggers.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        let after = Dictionary(new.definition.triggers.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        addedTriggers = new.definition.triggers.map(\.name).filter { before[$0] == nil }
        removedTriggers = old.definition.triggers.map(\.name).filter { after[$0] == nil }
        changedTriggers = new.definition.triggers.compactMap { trigger in
            before[trigger.name].map { $0 == trigger ? nil : trigger.name } ?? nil
        }
        let names = new.values.names + old.values.names.filter { !new.values.names.contains($0) }
        changedValues = names.filter { old.values[$0] != new.values[$0] }
        var oldRest = old.definition
        var newRest = new.definition
        oldRest.triggers = []
        newRest.triggers = []
        otherChanges = oldRest != newRest || old.environment != new.environment
    }

    package var isEmpty: Bool {
        addedTriggers.isEmpty && removedTriggers.isEmpty && changedTriggers.isEmpty && changedValues.isEmpty
            && !otherChanges
    }

    package var description: String {
        var parts: [String] = []
        if !addedTriggers.isEmpty { parts.append("triggers added: \(addedTriggers.joined(separator: ", "))") }
        if !removedTriggers.isEmpty { parts.append("triggers removed: \(removedTriggers.joined(separator: ", "))") }
        if !changedTriggers.isEmpty { parts.append("triggers changed: \(changedTriggers.joined(separator: ", "))") }
        if !changedValues.isEmpty { parts.append("values changed: \(changedValues.joined(separator: ", "))") }
        if otherChanges { parts.append("function or auth settings changed") }
        return parts.isEmpty ? "no changes" : parts.joined(separator: "; ")
    }
}
