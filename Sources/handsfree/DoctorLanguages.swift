import Foundation
import Localization
import Runtime

extension DoctorCommand {
    /// The languages installed (translations, packs), the one a run would use here and why, and what each
    /// language lacks, with a fix.
    func checkLanguages(_ r: inout DoctorReport) {
        guard let root = ProjectPaths.root else { return }
        let languages = Translations.installed(root: root)
        let source = ProjectPaths.isSourceTree(root)
        guard !languages.isEmpty else {
            r.warn(tr("languages: English only (no translations found for {folder})", ["folder": root.path]),
                   fix: source ? tr("check out the po/ folder again (git checkout po)")
                               : tr("reinstall (scripts/install.sh): it compiles the translations into share/locale"))
            return
        }
        // What `run` would choose here with no --language: the setting, then the environment.
        let env = ProcessInfo.processInfo.environment
        let paths = UserPaths.current(dataDir: dataDir)
        let setting = Translations.setting(paths)
        let codes = languages.map(\.code)
        // One line for the languages: each by its own name, and where the packs are (their words, keyboard, voice).
        let packs = LanguagePacks.installed().packs
        var names = Dictionary(languages.map { ($0.code, $0.label) }, uniquingKeysWith: { a, _ in a })
        for p in packs { names[p.code] = "\(p.code) (\(p.name))" }
        names[LanguageChoice.english] = names[LanguageChoice.english] ?? "en (English)"
        let all = names.keys.sorted().compactMap { names[$0] }.joined(separator: ", ")
        if let choice = try? LanguageChoice.resolve(commandLine: nil, setting: setting, environment: env, installed: codes) {
            let why: String
            switch choice.source {
            case .commandLine, .none: why = tr("nothing names another language")
            case .setting: why = tr("the language setting in {file}", ["file": paths.settings.path])
            case .environment(let v): why = "\(v)=\(env[v] ?? "")"
            }
            if let missing = choice.missing {
                r.warn(tr("languages: {all} installed; {missing} has no pack, so the shell is in English ({why})",
                          ["all": all, "missing": missing, "why": why]),
                       fix: tr("run with --language CODE or set language = \"CODE\" in {file}, CODE one of those installed",
                               ["file": paths.settings.path]))
            } else {
                r.ok(packs.isEmpty
                     ? tr("languages: {all} installed; the shell's language: {language} ({why})", ["all": all, "language": choice.language, "why": why])
                     : tr("languages: {all} installed (packs in {folder}); the shell's language: {language} ({why})",
                          ["all": all, "folder": LanguagePacks.folder.path, "language": choice.language, "why": why]))
            }
        }
        // In a source tree, how many of the template's messages each catalog translates.
        let template = source ? Self.templateMessages(root) : nil
        for language in languages {
            let name = language.label
            guard let file = language.catalog else {
                r.warn(tr("language {name}: no translations: its screens show in English", ["name": name]),
                       fix: source ? tr("msginit -i po/handsfree.pot -l {code} -o po/{code}.po, translate it and add {code} to po/LINGUAS", ["code": language.code])
                                   : tr("reinstall (scripts/install.sh): it compiles po/{code}.po into share/locale", ["code": language.code]))
                continue
            }
            let catalog = Translations.read(file, language: language.code)
            if let first = catalog.problems.first {
                r.warn(trn("language {name}: {n} problem in {file}, shown in English: {first}",
                           "language {name}: {n} problems in {file}, shown in English; the first: {first}",
                           catalog.problems.count, ["name": name, "file": file.path, "first": first.description]),
                       fix: tr("correct the lines named (msgfmt --check {file} names them too)", ["file": file.path]))
            }
            if let template, catalog.count < template {
                r.warn(tr("language {name}: {done} of {all} messages translated in {file}: the rest show in English",
                          ["name": name, "done": String(catalog.count), "all": String(template), "file": file.path]),
                       fix: tr("scripts/extract-messages.py --update, then translate the empty and fuzzy entries of {file}", ["file": file.path]))
            } else if catalog.problems.isEmpty {
                r.ok(trn("language {name}: {n} message translated ({file})", "language {name}: {n} messages translated ({file})",
                         catalog.count, ["name": name, "file": file.path]))
            }
            if language.pack == nil {
                r.warn(tr("language {name}: no language pack (languages/{code}/pack.toml): word suggestions, the keyboard and the voice stay English",
                          ["name": name, "code": language.code]),
                       fix: source ? tr("add languages/{code}/pack.toml with the language's word data (docs/ARCHITECTURE.md, Languages)", ["code": language.code])
                                   : tr("reinstall (scripts/install.sh) to get share/handsfree/languages/{code}/", ["code": language.code]))
            }
        }
    }

    /// How many messages `po/handsfree.pot` holds (the header left out); nil without it.
    static func templateMessages(_ root: URL) -> Int? {
        guard let text = try? String(contentsOf: root.appendingPathComponent("po/\(Translations.domain).pot"), encoding: .utf8)
        else { return nil }
        return POFile.parse(text, file: "").entries.filter { !$0.isHeader }.count
    }
}
