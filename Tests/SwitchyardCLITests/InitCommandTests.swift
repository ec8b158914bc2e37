import Foundation
import Messaging
import TestSupport
import Testing

/// `switchyard init`'s checks and the files it writes; `InitScaffoldBuildTests` builds what it writes.
@Suite struct InitCommandTests {
    @Test func writesTheAppNamedAfterItsDirectory() throws {
        let parent = try TemporaryDirectory()
        let run = try switchyard(["init", "book-shop", "--switchyard-path", repositoryRoot.path], in: parent.path)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.hasPrefix("wrote book-shop/Package.swift\n"))
        #expect(
            run.stdout.hasSuffix(
                "  swift run BookShop serve --watch   # serve the app, rebuilt as you save\n"
                    + "  swift test                         # run its tests\n"))
        let manifest = try #require(parent.read("book-shop/Package.swift"))
        let identity = repositoryRoot.lastPathComponent.lowercased()
        #expect(manifest.contains(".package(path: \"\(repositoryRoot.standardizedFileURL.path)\")"))
        #expect(manifest.contains("plugins: [.plugin(name: \"FunctionRegistryPlugin\", package: \"\(identity)\")]"))
        #expect(manifest.contains("name: \"BookShopFunctions\"") && manifest.contains("name: \"BookShopTests\""))
        for file in [
            "functions/greet.swift", "functions/countNewItem.swift", "triggers.yaml", "values.json", "README.md",
            "Sources/BookShop/main.swift", "Tests/BookShopTests/BookShopTests.swift", ".gitignore",
        ] {
            #expect(parent.read("book-shop/\(file)") != nil, "\(file)")
        }
        #expect(parent.read("book-shop/README.md")?.contains("swift run BookShop serve --watch") == true)
    }

    @Test func aURLDependencyNamesItsVersionOrBranch() throws {
        let parent = try TemporaryDirectory()
        let url = "https://example.com/team/Switchyard.git"
        #expect(try switchyard(["init", "a", "--switchyard-url", url, "--from", "1.2.0"], in: parent.path).status == 0)
        let versioned = try #require(parent.read("a/Package.swift"))
        #expect(versioned.contains(".package(url: \"\(url)\", from: \"1.2.0\")"))
        #expect(versioned.contains(".product(name: \"Switchyard\", package: \"switchyard\")"))
        #expect(
            try switchyard(["init", "b", "--switchyard-url", url, "--branch", "main"], in: parent.path).status == 0)
        #expect(parent.read("b/Package.swift")?.contains(".package(url: \"\(url)\", branch: \"main\")") == true)
    }

    @Test func refusesADirectoryThatIsNotEmptyAndWrongOptions() throws {
        let parent = try TemporaryDirectory()
        try parent.write("taken/notes.txt", "mine")
        let taken = try switchyard(["init", "taken"], in: parent.path)
        #expect(taken.status == 2)
        #expect(
            taken.stderr
                == "switchyard init: taken is not empty (it holds notes.txt); init makes a new app in a new or empty directory\n"
        )
        #expect(try FileManager.default.contentsOfDirectory(atPath: "\(parent.path)/taken") == ["notes.txt"])
        let cases: [([String], String)] = [
            (["init"], "missing DIR"),
            (["init", "x", "--from", "1.0.0"], "--from and --branch go with --switchyard-url"),
            (
                ["init", "x", "--switchyard-path", ".", "--switchyard-url", "u"],
                "give --switchyard-path or --switchyard-url"
            ),
            (
                ["init", "x", "--switchyard-url", "u", "--from", "1", "--branch", "b"],
                "give --from or --branch, not both"
            ),
            (["init", "x", "--switchyard-path", "/nonexistent"], "/nonexistent holds no Package.swift"),
        ]
        for (arguments, message) in cases {
            let run = try switchyard(arguments, in: parent.path)
            #expect(run.status == 2, "\(arguments)")
            #expect(run.stderr.hasPrefix("switchyard init: \(message)"), "\(run.stderr)")
        }
        #expect(!FileManager.default.fileExists(atPath: "\(parent.path)/x"))
    }
}

/// The slow one: scaffolds an app into a temporary directory, builds it against this checkout (a whole build of
/// Switchyard in a scratch directory kept under this checkout's .build, so later runs are incremental) and runs
/// its tests, which fire a synthetic event through SwitchyardTesting. Serialized: the tests share that scratch
/// directory.
@Suite(.serialized) struct InitScaffoldBuildTests {
    static let scratch = repositoryRoot.appendingPathComponent(".build/init-scaffold").path

    /// `switchyard init book-shop` in `parent`; returns the app's directory.
    func scaffold(in parent: TemporaryDirectory) throws -> String {
        let scaffold = try switchyard(["init", "book-shop", "--switchyard-path", repositoryRoot.path], in: parent.path)
        try #require(scaffold.status == 0, "\(scaffold.stderr)")
        return "\(parent.path)/book-shop"
    }

    @Test func theScaffoldedAppBuildsAndItsTestsPass() throws {
        let parent = try TemporaryDirectory()
        let app = try scaffold(in: parent)
        let scratch = Self.scratch
        let build = try swift(["build", "--build-tests", "--scratch-path", scratch], in: app)
        try #require(build.status == 0, "\(build.stdout)\n\(build.stderr)")
        let test = try swift(["test", "--skip-build", "--scratch-path", scratch], in: app)
        #expect(test.status == 0, "\(test.stdout)\n\(test.stderr)")
        #expect(test.stdout.contains("Test run with 2 tests in 1 suite passed"), "\(test.stdout)")
    }

    /// `switchyard import` of the tutorial-shaped export writes a package that builds, whose tests pass and
    /// whose stubs say which function is not ported yet when they run.
    @Test func theImportedTutorialExportBuildsAndItsTestsPass() throws {
        let parent = try TemporaryDirectory()
        let export = repositoryRoot.appendingPathComponent("Tests/SwitchyardTests/Fixtures/TutorialExport").path
        let imported = try switchyard(
            ["import", export, "--output", "book-shelf", "--switchyard-path", repositoryRoot.path], in: parent.path)
        try #require(imported.status == 0, "\(imported.stderr)")
        let app = "\(parent.path)/book-shelf"
        let build = try swift(["build", "--build-tests", "--scratch-path", Self.scratch], in: app)
        try #require(build.status == 0, "\(build.stdout)\n\(build.stderr)")
        let test = try swift(["test", "--skip-build", "--scratch-path", Self.scratch], in: app)
        #expect(test.status == 0, "\(test.stdout)\n\(test.stderr)")
        #expect(test.stdout.contains("Test run with 2 tests in 1 suite passed"), "\(test.stdout)")

        try parent.write("book-shelf/secrets.json", #"{"fcmServiceAccountKey": "{}"}"#)
        let call = try swift(
            [
                "run", "--skip-build", "--scratch-path", Self.scratch, "BookShelf", "call", "updateFCMUserToken",
                "\"t\"",
            ],
            in: app)
        #expect(call.status == 1, "\(call.stdout)\n\(call.stderr)")
        #expect(call.stderr.contains("not ported yet: updateFCMUserToken"), "\(call.stderr)")
    }

    /// Runs the toolchain's `swift` in `directory`, once more when SwiftPM itself was killed by a signal (it now
    /// and then dies of SIGSEGV in libdispatch's event loop, swiftlang/swift#87033, whatever it builds).
    func swift(_ arguments: [String], in directory: String) throws -> SwitchyardRun {
        let (first, killed) = try swiftOnce(arguments, in: directory)
        return killed ? try swiftOnce(arguments, in: directory).run : first
    }

    private func swiftOnce(_ arguments: [String], in directory: String) throws -> (
        run: SwitchyardRun, killedBySignal: Bool
    ) {
        // A build of the scaffold takes minutes on a loaded machine.
        let finished = try FinishedProcess.runWaiting(
            "/usr/bin/env", ["swift"] + arguments, in: directory, timeout: 1_800)
        let run = SwitchyardRun(status: finished.status, stdout: finished.output, stderr: finished.errors)
        return (run, finished.endedBySignal)
    }
}
