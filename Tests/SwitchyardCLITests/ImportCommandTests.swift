import Foundation
import TestSupport
import Testing

@Suite struct ImportCommandTests {
    let export = repositoryRoot.appendingPathComponent("Tests/SwitchyardTests/Fixtures/BooksExport").path

    @Test func writesTheFilesAndSaysWhatIsLeftToDo() throws {
        let output = try TemporaryDirectory()
        let run = try switchyard(["import", export, "--output", output.path])
        #expect(run.status == 0)
        #expect(run.stderr.isEmpty)
        let functions = [
            "createUserData", "queueFavoriteBookUpdate", "retryUnprocessedNotifications", "sendBooksTopic",
            "updateFCMUserToken",
        ]
        let files =
            ["triggers.yaml", "values.json", "environments/testing.json", "environments/production.json"]
            + functions.map { "functions/\($0).swift" } + ["functions/NotImplemented.swift"]
        #expect(
            run.stdout == files.map { "wrote \(output.path)/\($0)\n" }.joined()
                + "5 functions to implement in Swift (stubs in \(output.path)/functions): "
                + functions.joined(separator: ", ") + "\n"
                + "secret to set: fcmServiceAccountKey (set SWITCHYARD_SECRET_FCMSERVICEACCOUNTKEY or add it to secrets.json)\n"
        )
        for file in files { #expect(output.read(file) != nil, "\(file)") }
    }

    @Test func refusesToOverwriteWithoutForce() throws {
        let output = try TemporaryDirectory()
        try output.write("triggers.yaml", "# mine\n")
        let refused = try switchyard(["import", export], in: output.path)
        #expect(refused.status == 2)
        #expect(refused.stdout.isEmpty)
        #expect(
            refused.stderr
                == "switchyard import: refusing to overwrite existing files (use --force to replace them): ./triggers.yaml\n"
        )
        #expect(output.read("triggers.yaml") == "# mine\n")
        #expect(output.read("values.json") == nil)

        let forced = try switchyard(["import", export, "--config", output.path, "--force"])
        #expect(forced.status == 0)
        #expect(forced.stdout.hasPrefix("wrote \(output.path)/triggers.yaml\n"))
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
                "\(elsewhere.path): not an App Services export: an export (appservices pull, realm-cli export) holds realm_config.json"
            ))
        #expect(try FileManager.default.contentsOfDirectory(atPath: output.path).isEmpty)

        let noExport = try switchyard("import")
        #expect(noExport.status == 2)
        #expect(noExport.stderr.hasPrefix("switchyard import: missing EXPORT_DIR"))
    }
}
