import Foundation
import Testing

@Suite struct CommandLineToolTests {
    @Test func helpListsEveryCommand() throws {
        let help = try switchyard("--help")
        #expect(help.status == 0)
        for command in [
            "validate", "run", "call", "fire", "logs", "triggers", "resume", "outbox", "import", "generate-event",
            "ejson",
        ] {
            #expect(help.stdout.contains("\n  \(command) "), "\(command)")
            let own = try switchyard(command, "--help")
            #expect(own.status == 0)
            #expect(own.stdout.hasPrefix("USAGE: switchyard \(command)"), "\(command)")
        }
    }

    @Test func anUnknownCommandSuggestsTheClosestOne() throws {
        let run = try switchyard("valdate")
        #expect(run.status == 2)
        #expect(run.stdout.isEmpty)
        #expect(
            run.stderr.hasPrefix(
                "switchyard: unknown command 'valdate' (did you mean 'validate'?)\n\nUSAGE: switchyard"))
        let far = try switchyard("frobnicate")
        #expect(far.status == 2)
        #expect(far.stderr.hasPrefix("switchyard: unknown command 'frobnicate'\n"))
    }

    @Test func optionsAreCheckedPerCommand() throws {
        let typo = try switchyard("import", "export", "--forse")
        #expect(typo.status == 2)
        #expect(typo.stderr.hasPrefix("switchyard import: unknown option '--forse' (did you mean '--force'?)"))
        let missing = try switchyard("validate", "--config")
        #expect(missing.status == 2)
        #expect(missing.stderr.hasPrefix("switchyard validate: --config needs a value"))
        let twice = try switchyard("run", "--config", "a", "--config=b")
        #expect(twice.status == 2)
        #expect(twice.stderr.hasPrefix("switchyard run: --config is given more than once"))
    }
}
