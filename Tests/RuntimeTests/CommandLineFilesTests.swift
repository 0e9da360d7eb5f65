import Foundation
import Runtime
import SystemIO
import Shell
import Testing

/// The file system behind the Terminal screen's command-line suggestions, on a real temporary folder.
@Suite struct CommandLineFilesTests {
    func folder() throws -> String {
        let dir = NSTemporaryDirectory() + "hf-clf-\(UUID().uuidString)"
        let fm = FileManager.default
        try fm.createDirectory(atPath: dir + "/home/Music", withIntermediateDirectories: true)
        try fm.createDirectory(atPath: dir + "/work/src", withIntermediateDirectories: true)
        try fm.createDirectory(atPath: dir + "/bin", withIntermediateDirectories: true)
        try Data().write(to: URL(fileURLWithPath: dir + "/work/notes.txt"))
        try fm.createSymbolicLink(atPath: dir + "/work/link-to-src", withDestinationPath: dir + "/work/src")
        try Data("#!/bin/sh\n".utf8).write(to: URL(fileURLWithPath: dir + "/bin/frobnicate"))
        try fm.setAttributes([.posixPermissions: 0o755], ofItemAtPath: dir + "/bin/frobnicate")
        try Data().write(to: URL(fileURLWithPath: dir + "/bin/not-executable"))
        return dir
    }

    @Test func directoriesAreReadAsTypedFromHomeTheWorkingDirectoryOrTheRoot() throws {
        let dir = try folder()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let files = CommandLineFiles(environment: ["HOME": dir + "/home", "PATH": dir + "/bin"])
        func names(_ typed: String, _ cwd: String?) -> [String]? {
            files.list(typed, workingDirectory: cwd)?.map { $0.isDirectory ? $0.name + "/" : $0.name }.sorted()
        }
        #expect(names("", dir + "/work") == ["link-to-src/", "notes.txt", "src/"])
        #expect(names("~/", nil) == ["Music/"])
        #expect(names(dir + "/work/", nil) == ["link-to-src/", "notes.txt", "src/"])
        #expect(names("src/", dir + "/work") == [])
        // Relative with no working directory known, another user's home, a folder that is not there: nothing.
        #expect(names("", nil) == nil)
        #expect(names("~root/", dir) == nil)
        #expect(names("nowhere/", dir) == nil)
    }

    @Test func programsAreTheExecutablesOnPath() throws {
        let dir = try folder()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let files = CommandLineFiles(environment: ["PATH": dir + "/bin:relative/bin:" + dir + "/missing"])
        #expect(files.commands() == ["frobnicate"])
        guard case .commandsListed(let names)? = files.perform(.listCommands) else { Issue.record("no answer"); return }
        #expect(names == ["frobnicate"])
        let bin = CommandLineListings.Directory(typed: "", workingDirectory: dir + "/bin")
        guard case .directoryListed(let d, let entries)? = files.perform(.listDirectory(bin)) else { Issue.record("no answer"); return }
        #expect(d == bin && entries?.count == 2)
    }

    @Test func anOldListOfProgramsIsAnsweredAtOnceAndMadeAgainAside() throws {
        let dir = try folder()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        // Programs are listed again once 15 × maxAge old.
        let clock = TestClock()
        let files = CommandLineFiles(environment: ["PATH": dir + "/bin"], maxAge: 2, clock: clock)
        #expect(files.commands() == ["frobnicate"])
        let added = dir + "/bin/zapper"
        FileManager.default.createFile(atPath: added, contents: Data("#!/bin/sh\n".utf8), attributes: [.posixPermissions: 0o755])
        clock.advance(by: 29)
        #expect(files.commands() == ["frobnicate"], "not yet old")
        clock.advance(by: 1)
        // The old list at once; the new one once made on the other thread.
        #expect(files.commands() == ["frobnicate"])
        let deadline = Date().addingTimeInterval(5)
        while files.commands() != ["frobnicate", "zapper"], Date() < deadline { usleep(10_000) }
        #expect(files.commands() == ["frobnicate", "zapper"])
    }

    @Test func aHugeDirectoryIsReadOnlyUpToTheLimit() throws {
        let dir = try folder()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        for i in 0..<50 { try Data().write(to: URL(fileURLWithPath: dir + "/work/f\(i)")) }
        let files = CommandLineFiles(environment: [:], maxEntries: 10)
        #expect(files.list("", workingDirectory: dir + "/work")?.count == 10)
    }
}
