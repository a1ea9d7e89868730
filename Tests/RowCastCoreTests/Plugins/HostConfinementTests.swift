import RowCastJSON
import RowCastPluginHosting
import Testing

/// What a host reports of its confinement travels in its hello, and which plugins run relaxed
/// is decided by their file names.
@Suite struct HostConfinementTests {
    @Test("a hello carries the host's confinement; a hello without one reads as none")
    func helloCarriesConfinement() throws {
        let confinement = HostConfinement(
            measures: ["seccomp", HostConfinement.Measure.landlock(abi: 7)], gaps: ["network namespace: not root"])
        let hello = HostHello(
            name: "note", version: "1", itemTypes: ["note"], headerTypes: [], handlesSelect: false,
            confinement: confinement)
        let read = try HostHello(json: Array(hello.frame.dropFirst()))
        #expect(read.confinement == confinement)
        #expect(read.confinement.forbidsProcesses)
        #expect(read.confinement.summary == "seccomp, landlock ABI 7")
        let old = try HostHello(
            json: Array(#"{"name":"n","version":"1","itemTypes":[],"headerTypes":[],"select":false}"#.utf8))
        #expect(old.confinement == HostConfinement())
        #expect(old.confinement.summary == "none")
    }

    @Test("plugin_unconfined names plugins by the NAME of librowcast-NAME.so, nothing else")
    func unconfinedByFileName() {
        let settings = PluginHostSettings(executable: "/bin/false", unconfinedPlugins: ["maps"])
        #expect(settings.isUnconfined("/usr/lib/rowcast/plugins/librowcast-maps.so"))
        #expect(!settings.isUnconfined("/usr/lib/rowcast/plugins/librowcast-maps2.so"))
        #expect(!settings.isUnconfined("/usr/lib/rowcast/plugins/maps.so"))
        #expect(!settings.isUnconfined("/usr/lib/rowcast/maps/librowcast-note.so"))
        #expect(!PluginHostSettings(executable: "/bin/false").isUnconfined("/p/librowcast-maps.so"))
    }
}
