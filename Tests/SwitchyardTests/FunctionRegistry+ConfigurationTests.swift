import BSON
import DocumentStore
import TestSupport
import Testing

@testable import Switchyard

@Suite struct FunctionRegistryConfigurationTests {
    let triggers = """
        triggers:
          - name: onBook
            type: database
            function: onBook
            database: product
            collection: book
            operations: [INSERT]
        """

    func registry(onBookIsCallable: Bool) -> FunctionRegistry {
        var registry = FunctionRegistry()
        if onBookIsCallable {
            registry.register("onBook") { (arguments: [BSON], _: FunctionContext) in .array(arguments) }
        } else {
            registry.register("onBook") { (_: ChangeEvent, _: FunctionContext) in }
        }
        return registry
    }

    @Test func loadsWhenEveryTriggerHasAFunctionOfItsKind() throws {
        let directory = try TemporaryDirectory()
        try directory.write("triggers.yaml", triggers)
        let configuration = try registry(onBookIsCallable: false).loadConfiguration(
            directory: directory.path, variables: [:])
        #expect(configuration.triggers.map(\.name) == ["onBook"])
    }

    @Test func reportsUnknownFunctionsAndFunctionsOfTheWrongKind() throws {
        let directory = try TemporaryDirectory()
        try directory.write("triggers.yaml", triggers)
        #expect(
            throws: ConfigurationErrors([
                ConfigurationError(
                    file: "\(directory.path)/triggers.yaml", location: SourceLocation(line: 4, column: 15),
                    message: "unknown function 'onBook' (no functions are registered)")
            ])
        ) { try FunctionRegistry().loadConfiguration(directory: directory.path, variables: [:]) }
        let wrongKind = #expect(throws: ConfigurationErrors.self) {
            try registry(onBookIsCallable: true).loadConfiguration(directory: directory.path + "/", variables: [:])
        }
        #expect(wrongKind?.errors.count == 1)
        #expect(wrongKind?.errors.first?.file == "\(directory.path)/triggers.yaml")
        #expect(
            wrongKind?.errors.first?.message.hasPrefix(
                "trigger 'onBook' is a database trigger but function 'onBook' is callable") == true)
    }
}
