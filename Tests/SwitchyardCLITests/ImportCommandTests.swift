import Foundation
import TestSupport
import Testing

@Suite struct ImportCommandTests {
    let export = repositoryRoot.appendingPathComponent("Tests/SwitchyardTests/Fixtures/BooksExport").path

    @Test func writesThePackageAndSaysWhatIsLeftToDo() throws {
        let parent = try TemporaryDirectory()
        let output = "\(parent.path)/books"
        let run = try switchyard(["import", export, "--output", output, "--switchyard-path", repositoryRoot.path])
        #expect(run.status == 0)
        #expect(run.stderr.isEmpty)
        let functions = [
            "createUserData", "queueFavoriteBookUpdate", "retryUnprocessedNotifications", "sendBooksTopic",
            "updateFCMUserToken",
        ]
        let files =
            [
                "Package.swift", ".gitignore", "README.md", "triggers.yaml", "values.json",
                "environments/testing.json", "environments/production.json",
            ]
            + functions.flatMap { name in
                ["functions/\(name).swift"]
                    + (["sendBooksTopic", "updateFCMUserToken"].contains(name) ? ["functions/js/\(name).js"] : [])
            }
            + ["functions/_NotPortedYet.swift", "Sources/Books/main.swift", "Tests/BooksTests/BooksTests.swift"]
        #expect(
            run.stdout == files.map { "wrote \(output)/\($0)\n" }.joined()
                + "secret to set: fcmServiceAccountKey (set SWITCHYARD_SECRET_FCMSERVICEACCOUNTKEY or add it to \(output)/secrets.json)\n"
                + "\nnext:\n  cd \(output)\n  swift build                  # the stubs build as they are\n"
                + "  port 5 stubs in functions/ from functions/js/: \(functions.joined(separator: ", "))\n"
                + "  set the secrets above\n"
                + "  swift test                   # the app loads with every function\n"
                + "  swift run Books serve --watch\n"
        )
        for file in files { #expect(parent.read("books/\(file)") != nil, "\(file)") }
    }

    /// Finding: the closing lines said nothing of what to do next, nor of what was kept or left out.
    @Test func namesWhatItKeptAndLeftOut() throws {
        let tutorial = repositoryRoot.appendingPathComponent("Tests/SwitchyardTests/Fixtures/TutorialExport").path
        let output = try TemporaryDirectory()
        let run = try switchyard(["import", tutorial, "--output", output.path])
        #expect(run.status == 0, "\(run.stderr)")
        let lines = run.stdout.split(separator: "\n").map(String.init)
        #expect(
            lines.contains(
                "imported data_sources/mongodb-atlas/product/book/schema.json as the export holds it (App Services' layout, read from the app directory)"
            ))
        #expect(
            lines.contains(
                "imported HTTPS endpoint GET /bookOfTheDay (function bookOfTheDay) as endpoints: in triggers.yaml, served at /app/{app id}/endpoint/bookOfTheDay"
            ))
        #expect(lines.contains("\(tutorial)/graphql/: GraphQL left out: Switchyard serves no GraphQL API"))
        #expect(lines.contains { $0.hasPrefix("\(tutorial)/sync/config.json: Device Sync (flexible sync) left out") })
        #expect(lines.suffix(7).first == "next:")
        #expect(lines.last?.hasPrefix("  swift run ") == true && lines.last?.hasSuffix(" serve --watch") == true)
    }

    @Test func refusesToOverwriteWithoutForce() throws {
        let output = try TemporaryDirectory()
        try output.write("triggers.yaml", "# mine\n")
        let refused = try switchyard(["import", export, "--switchyard-path", repositoryRoot.path], in: output.path)
        #expect(refused.status == 2)
        #expect(refused.stdout.isEmpty)
        #expect(
            refused.stderr
                == "switchyard import: refusing to overwrite existing files (use --force to replace them): ./triggers.yaml\n"
        )
        #expect(output.read("Package.swift") == nil)
        #expect(output.read("triggers.yaml") == "# mine\n")
        #expect(output.read("values.json") == nil)

        let forced = try switchyard(["import", export, "--config", output.path, "--force"])
        #expect(forced.status == 0)
        #expect(forced.stdout.hasPrefix("wrote \(output.path)/Package.swift\n"))
        #expect(output.read("triggers.yaml")?.hasPrefix("appId: books-qwert\n") == true)
    }

    @Test func aMissingOrInvalidExportIsBadInput() throws {
        let output = try TemporaryDirectory()
        let missing = try switchyard(["import", "\(output.path)/nowhere"])
        #expect(missing.status == 2)
        #expect(missing.stderr == "switchyard import: \(output.path)/nowhere: no such directory\n")

        let broken = try TemporaryDirectory()
        try broken.write("triggers/bad.json", "{\"name\": \"bad\",\n  \"type\": 7}")
        let invalid = try switchyard(["import", broken.path, "--output", output.path])
        #expect(invalid.status == 2)
        #expect(invalid.stderr.hasPrefix("\(broken.path)/triggers/bad.json:"))
        #expect(try FileManager.default.contentsOfDirectory(atPath: output.path).isEmpty)

        let elsewhere = try TemporaryDirectory()
        try elsewhere.write("README.md", "not an export\n")
        let notAnExport = try switchyard(["import", elsewhere.path, "--output", output.path])
        #expect(notAnExport.status == 2)
        #expect(
            notAnExport.stderr.hasPrefix(
                "\(elsewhere.path): not an App Services export: an export (appservices pull, realm-cli export) holds root_config.json or realm_config.json"
            ))
        #expect(try FileManager.default.contentsOfDirectory(atPath: output.path).isEmpty)

        let noExport = try switchyard("import")
        #expect(noExport.status == 2)
        #expect(noExport.stderr.hasPrefix("switchyard import: missing EXPORT_DIR"))
    }
}
