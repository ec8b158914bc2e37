import BSON
import Switchyard

extension SwitchyardApp {
    /// An app on an in-memory store, from a definition and values given in code.
    static func inMemory(
        _ registry: FunctionRegistry, definition: AppDefinition = AppDefinition(), values: AppValues = AppValues(),
        environment: AppEnvironment = .development, options: Options = Options()
    ) async throws -> SwitchyardApp {
        let configuration = AppConfiguration(definition: definition, environment: environment, values: values)
        return try await open(configuration: configuration, registry: registry, store: .memory, options: options)
    }
}

extension AsyncStream {
    /// The next element, or nil when the stream ended.
    func first() async -> Element? {
        var iterator = makeAsyncIterator()
        return await iterator.next()
    }
}
