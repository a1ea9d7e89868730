import Foundation
import RowCastTesting
import Testing

/// `make install-cli-docs` (the part of `make install` after the release build) puts the man
/// pages and completions under DESTDIR and PREFIX, and `make uninstall` removes them.
@Suite(.serialized)
struct CommandLineDocsInstallEndToEndTests {
    @Test(
        "make install-cli-docs DESTDIR=… PREFIX=/usr installs rowcast.1, rowcastd.1 and the bash, zsh and fish completions; make uninstall removes them"
    )
    func installAndUninstall() throws {
        guard
            let make = ["/usr/bin/make", "/bin/make"].first(where: { FileManager.default.isExecutableFile(atPath: $0) })
        else {
            Issue.record("make is not installed")
            return
        }
        let stage = try TemporaryDirectory("rowcast-stage")
        let root = BuildProducts.repositoryRoot.path
        let common = ["-C", root, "DESTDIR=\(stage.path)", "PREFIX=/usr"]
        // The checkout of swift-argument-parser next to this build (.build, or .build-asan for
        // a sanitized one), whose generate-manual the Makefile builds (a minute or two, once).
        let checkout = BuildProducts.directory.deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("checkouts/swift-argument-parser").path
        let parser = FileManager.default.fileExists(atPath: checkout) ? ["ARGUMENT_PARSER_DIR=\(checkout)"] : []
        let install = try ProgramRun.run(
            make, common + ["install-cli-docs", "BIN_FROM=\(BuildProducts.directory.path)"] + parser)
        #expect(install.status == 0, "\(install.output)")

        let usr = stage.path + "/usr"
        for page in ["rowcast", "rowcastd"] {
            let path = "\(usr)/share/man/man1/\(page).1"
            let text = try String(contentsOfFile: path, encoding: .utf8)
            // generate-manual writes mdoc: .Dt is its title line (man(7) pages have .TH).
            #expect(text.contains(".Dt \(page.uppercased()) 1"), "\(path)")
            #expect(!text.contains("\n\n"), "an empty line in \(path) makes man warn")
        }
        let manual = try String(contentsOfFile: "\(usr)/share/man/man1/rowcast.1", encoding: .utf8)
        // mdoc writes an option as `Fl -name`. The pages are generated from the binaries at
        // install, so they follow each --help: --client and --req (publish) and plugin new's
        // SDK search are recent ones.
        for command in [
            "publish", "subscribe", "snapshot", "status", "Fl -allow-missing", "Fl -version", "Fl -client", "Fl -req",
            "the SDK/ folder of the RowCast checkout",
        ] {
            #expect(manual.contains(command), "rowcast.1 does not mention \(command)")
        }
        if FileManager.default.isExecutableFile(atPath: "/usr/bin/man") {
            let rendered = try ProgramRun.run("/usr/bin/man", ["-l", "\(usr)/share/man/man1/rowcast.1"])
            #expect(rendered.status == 0, "\(rendered.output)")
            #expect(rendered.output.contains("snapshot"))
            // groff's and mandoc's own complaints; the help texts may say "warning" themselves.
            let complaints = ["troff:", ": warning:", "mandoc:"].filter { rendered.output.contains($0) }
            #expect(complaints.isEmpty, "\(rendered.output.prefix(500))")
        }

        let completions = [
            "\(usr)/share/bash-completion/completions/rowcast", "\(usr)/share/zsh/site-functions/_rowcast",
            "\(usr)/share/fish/vendor_completions.d/rowcast.fish",
        ]
        for path in completions {
            let text = try String(contentsOfFile: path, encoding: .utf8)
            // fish names an option without its dashes (-l 'allow-missing').
            #expect(
                text.contains("snapshot") && text.contains("allow-missing"),
                "\(path) does not complete rowcast's commands")
        }
        if FileManager.default.isExecutableFile(atPath: "/bin/bash") {
            let loaded = try ProgramRun.run("/bin/bash", ["-c", "source '\(completions[0])' && complete -p rowcast"])
            #expect(loaded.status == 0 && loaded.output.contains("rowcast"), "\(loaded.output)")
        }

        let uninstall = try ProgramRun.run(make, common + ["uninstall"])
        #expect(uninstall.status == 0, "\(uninstall.output)")
        for path in completions + ["\(usr)/share/man/man1/rowcast.1", "\(usr)/share/man/man1/rowcastd.1"] {
            #expect(!FileManager.default.fileExists(atPath: path), "make uninstall left \(path)")
        }
    }
}
