import Foundation
import Testing
@testable import HotPotato

/// A decoding's scope is a generation in a word that is never freed and is given to later
/// decodings: a closed scope must stay closed whatever the word's later scopes do.
@Suite struct JSONDecodingScopeTests {
    @Test func aClosedScopeStaysClosedWhileItsWordServesOthers() {
        let first = JSONDecodingScope.open()
        #expect(first.isOpen)
        first.close()
        #expect(!first.isOpen)
        // The next scopes may be given the same word; none of them reopens the first.
        let later = (0..<4).map { _ in JSONDecodingScope.open() }
        #expect(later.allSatisfy { $0.isOpen })
        #expect(!first.isOpen)
        for scope in later { scope.close() }
        #expect(later.allSatisfy { !$0.isOpen })
        first.close()
        let again = JSONDecodingScope.open()
        #expect(again.isOpen, "closing a closed scope twice does not close a later one")
        again.close()
    }

    @Test func scopesOpenedAtOnceOnManyThreadsAreEachTheirOwn() async {
        let everyScopeBehaved = await withTaskGroup(of: Bool.self) { group in
            for _ in 0..<8 {
                group.addTask {
                    var scopes: [JSONDecodingScope] = []
                    for _ in 0..<200 { scopes.append(.open()) }
                    let allOpen = scopes.allSatisfy { $0.isOpen }
                    for scope in scopes { scope.close() }
                    return allOpen && scopes.allSatisfy { !$0.isOpen }
                }
            }
            return await group.reduce(true) { $0 && $1 }
        }
        #expect(everyScopeBehaved)
    }
}
