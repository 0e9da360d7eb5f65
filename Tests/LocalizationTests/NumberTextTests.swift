#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Testing
@testable import Localization

/// Numbers in the UI language: the catalog's decimal separator ("2,0" in German), made without the C locale
/// or Foundation's, so neither the process's `LC_NUMERIC` nor a `Locale` changes what a screen shows.
@Suite struct NumberTextTests {
    @Test func fixedDigitsRoundHalfAwayFromZeroAndKeepTheirZeros() {
        #expect(NumberText.fixed(2, digits: 1, point: ",") == "2,0")
        #expect(NumberText.fixed(12.375, digits: 2, point: ".") == "12.38")
        #expect(NumberText.fixed(0.05, digits: 1, point: ",") == "0,1")
        #expect(NumberText.fixed(1.96, digits: 1, point: ".") == "2.0")
        #expect(NumberText.fixed(-1.25, digits: 1, point: ",") == "-1,3")
        #expect(NumberText.fixed(-0.04, digits: 1, point: ",") == "0,0", "a value that rounds to zero has no sign")
        #expect(NumberText.fixed(0.001, digits: 3, point: ",") == "0,001")
        #expect(NumberText.fixed(7.6, digits: 0, point: ",") == "8")
        #expect(NumberText.fixed(1234567.891, digits: 2, point: ",") == "1234567,89")
    }

    @Test func trimmedDropsTrailingZerosAndAPointLeftAlone() {
        #expect(NumberText.trimmed(0.3, digits: 2, point: ",") == "0,3")
        #expect(NumberText.trimmed(0.15, digits: 2, point: ",") == "0,15")
        #expect(NumberText.trimmed(1, digits: 2, point: ",") == "1")
        #expect(NumberText.trimmed(100, digits: 1, point: ".") == "100", "a whole number's own zeros stay")
        #expect(NumberText.trimmed(2.5, digits: 1, point: " point ") == "2 point 5")
    }

    @Test func whatCannotBeComputedOrIsHugeIsShownWithoutATrap() {
        #expect(NumberText.fixed(.nan, digits: 1, point: ",") == "—")
        #expect(NumberText.fixed(.infinity, digits: 1, point: ",") == "—")
        #expect(NumberText.trimmed(-.infinity, digits: 2, point: ",") == "—")
        #expect(NumberText.fixed(1e300, digits: 1, point: ",").hasPrefix("1"))
        #expect(NumberText.fixed(-9.1e18, digits: 2, point: ",") == "-9100000000000000000")
        #expect(NumberText.fixed(1.5, digits: 40, point: ",") == "1,500000000", "digits are capped at 9")
    }

    /// The separator is the catalog's: German, French, Spanish, Italian, Dutch and Portuguese write a comma.
    @Test(arguments: ["de", "es", "fr", "it", "nl", "pt"])
    func eachShippedLanguageWritesItsDecimalComma(_ lang: String) throws {
        let (_, catalog) = try ProjectCatalogTests.catalog(lang)
        #expect(catalog.decimal(2, digits: 1) == "2,0")
        #expect(catalog.number(0.15, digits: 2) == "0,15")
        #expect(Catalog.english.decimal(2, digits: 1) == "2.0")
    }

    /// A locale of the C library with a decimal comma, where one is installed.
    static let commaLocale: String? = {
        let was = setlocale(LC_NUMERIC, nil).map { String(cString: $0) } ?? "C"
        defer { setlocale(LC_NUMERIC, was) }
        return ["de_DE.UTF-8", "fr_FR.UTF-8", "es_ES.UTF-8", "it_IT.UTF-8"].first { setlocale(LC_NUMERIC, $0) != nil }
    }()

    /// The C library's numeric locale is the process's: a library that set it (or an `LC_NUMERIC` passed on)
    /// makes `printf` write "2,0" on an English screen. What the catalog gives does not move with it.
    @Test(.enabled(if: commaLocale != nil, "no locale with a decimal comma is installed (locale -a)"))
    func theCLocaleDoesNotChangeWhatIsShown() throws {
        let (_, german) = try ProjectCatalogTests.catalog("de")
        let was = setlocale(LC_NUMERIC, nil).map { String(cString: $0) } ?? "C"
        defer { setlocale(LC_NUMERIC, was) }
        _ = Self.commaLocale.map { setlocale(LC_NUMERIC, $0) }
        #expect(Catalog.english.decimal(1234.5, digits: 2) == "1234.50")
        #expect(german.decimal(1234.5, digits: 2) == "1234,50")
    }
}
