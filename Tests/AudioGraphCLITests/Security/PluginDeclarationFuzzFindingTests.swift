import Foundation
import Testing

/// Issue 14, "Fuzzing in the project": what the `plugin` fuzz target found, as a user meets it. A plugin whose
/// node declaration gives an integer parameter a range bound with no Int (1e999, 1e19) crashed `audiograph run`
/// and `audiograph plugins` (a trap converting the bound); such a plugin is refused with the reason, exit 69.
@Suite struct PluginDeclarationFuzzFindingTests {
    @Test(arguments: ["[0,1e999]", "[1,655900719925474099336]", "[-1e19,0]", "[0,0.5]"])
    func integerRangeWithoutAnIntIsRefused(range: String) async throws {
        let directory = try await CPluginLoadingTests.folder(plugins: ["range.so"])
        let library = try await CTestPlugin.build(.failAfterRange(range), named: "range.so", in: directory)
        try await CPluginLoadingTests.expectRefused(
            library, in: directory, exit: 69,
            reason: "node type 0's declaration: parameter failAfter: an integer range must be two whole numbers below 9e15")
    }

    @Test func wholeNumberRangeStillLoads() async throws {
        let directory = try await CPluginLoadingTests.folder(plugins: ["range.so"])
        _ = try await CTestPlugin.build(.failAfterRange("[0,8999999999999999]"), named: "range.so", in: directory)
        let listed = try await PluginTests.audiograph(["plugins", "config.json"], in: directory)
        #expect(listed.status == 0 && !listed.signalled, "\(listed)")
    }
}
