import Foundation

extension FunctionRegistry {
    /// Loads the configuration in `directory` and checks it against these functions, as opening the app does:
    /// every function a trigger calls or `functions:` names is registered, and each trigger's function has the
    /// trigger's kind. All problems are reported together.
    package func loadConfiguration(
        directory: String, environment: AppEnvironment = .development,
        variables: [String: String] = ProcessInfo.processInfo.environment
    ) throws(ConfigurationErrors) -> AppConfiguration {
        let configuration = try AppConfiguration.load(
            directory: directory, environment: environment, registeredFunctions: names, variables: variables)
        let trimmed = directory.hasSuffix("/") ? String(directory.dropLast()) : directory
        let file =
            trimmed.isEmpty || trimmed == "."
            ? AppConfiguration.triggersFile : "\(trimmed)/\(AppConfiguration.triggersFile)"
        let problems = check(configuration.definition, file: file)
        guard problems.isEmpty else { throw ConfigurationErrors(problems) }
        return configuration
    }
}
