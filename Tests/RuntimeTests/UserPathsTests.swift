import Foundation
import Runtime
import Testing

/// One set of folders for every command, from the flag and the environment in the documented order.
@Suite struct UserPathsTests {
    @Test func theFlagWinsThenHandsfreeThenXDGThenHome() {
        let env = ["HOME": "/h", "HANDSFREE_DATA_DIR": "/d", "XDG_DATA_HOME": "/x"]
        #expect(UserPaths(environment: env, dataDir: "/flag").data.path == "/flag")
        #expect(UserPaths(environment: env, dataDir: nil).data.path == "/d")
        #expect(UserPaths(environment: ["HOME": "/h", "XDG_DATA_HOME": "/x"], dataDir: nil).data.path == "/x/handsfree")
        #expect(UserPaths(environment: ["HOME": "/h"], dataDir: nil).data.path == "/h/.local/share/handsfree")
        // Empty variables count as unset (the XDG spec's rule).
        #expect(UserPaths(environment: ["HOME": "/h", "HANDSFREE_DATA_DIR": "", "XDG_DATA_HOME": ""], dataDir: "").data.path
                == "/h/.local/share/handsfree")
    }

    @Test func configAndStateFolders() {
        let p = UserPaths(environment: ["HOME": "/h"], dataDir: nil)
        #expect(p.config.path == "/h/.config/handsfree")
        #expect(p.state.path == "/h/.local/state/handsfree")
        let q = UserPaths(environment: ["HOME": "/h", "HANDSFREE_CONFIG_DIR": "/c", "XDG_STATE_HOME": "/s"], dataDir: nil)
        #expect(q.settings.path == "/c/settings.toml")
        #expect(q.actionLog.path == "/s/handsfree/shell.log")
        #expect(q.onboardedMarker.path == "/s/handsfree/onboarded")
    }

    @Test func compiledWordListsGoToTheCacheFolder() {
        #expect(UserPaths(environment: ["HOME": "/h"], dataDir: nil).wordCache.path == "/h/.cache/handsfree/words-en.bin")
        #expect(UserPaths(environment: ["HOME": "/h", "XDG_CACHE_HOME": "/k"], dataDir: nil).wordCache.path
                == "/k/handsfree/words-en.bin")
        #expect(UserPaths(environment: ["HOME": "/h", "XDG_CACHE_HOME": ""], dataDir: nil).cache.path == "/h/.cache/handsfree")
    }

    @Test func learnedWordsAreTheSameFileForEveryCommand() {
        let p = UserPaths(environment: ["HOME": "/h"], dataDir: "/data")
        #expect(p.userWords.path == "/data/user-words.txt")
        #expect(UserWordsFile.url(userFile: nil, paths: p) == p.userWords)
        #expect(UserWordsFile.url(userFile: "/elsewhere.txt", paths: p).path == "/elsewhere.txt")
        #expect(p.metrics.path == "/data/metrics.ndjson")
    }

    @Test func theFirstStartIsRememberedInTheStateFolder() throws {
        let home = FileManager.default.temporaryDirectory.appendingPathComponent("paths-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: home) }
        let p = UserPaths(environment: ["HOME": home.path], dataDir: nil)
        #expect(p.isFirstStart)
        p.markOnboarded()
        #expect(!p.isFirstStart)
    }
}
