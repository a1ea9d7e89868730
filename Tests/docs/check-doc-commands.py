#!/usr/bin/env python3
"""Checks that every shell command block of the docs runs as written, or says why it does not.

The documents: every README.md of the repository (README.md, Examples/, Benchmarks/, ...) and
docs/*.md. Each fenced block whose info
string is sh, bash, shell or console must have, on the line before its fence, one of these
markers (docs/TESTING.md, "Commands in the docs"):

  <!-- check: run -->
      Each command runs here, against a rowcastd of this build started as `make run` starts it
      (its plugins, the examples' C plugins and cells) on free loopback ports, one daemon per
      document; ROWCAST_CONTROL, ROWCAST_PUBLISH and ROWCAST_INGEST name it, and `rowcast` of
      this build is first on the PATH. Commands run in order, in a scratch folder that links to
      every top-level entry of the repository (so `.build/debug/rowcast` and `Examples/...` work
      and files the commands write stay out of the checkout). Each must exit 0 within 30 s; a
      command followed by a comment `# error: TEXT` (at its end or on the next line) must fail
      and print `error: TEXT`. A `make run` line stands for the daemon the check started.
  <!-- check: run-until-stopped -->
      As run, for commands that run until Ctrl-C (`rowcast subscribe`): each must still be
      running after 2 s, having printed no `error:`; it is then stopped.
  <!-- check: test NAME -->
      The test NAME (Tests/**/NAME.swift or NAME.py) runs this block; that file must exist and
      name this document's path.
  <!-- check: illustration: WHY -->
      Not run (it needs root, systemd, another host, or minutes), for the reason given.

Whatever the marker, each `rowcast` and `rowcastd` command line is checked against this
build's `--help`: its subcommands and every --option it uses must exist. An unlabeled fence
whose lines look like commands (`rowcast ...`, `make ...`, `sudo ...`) is refused too: label
it sh (and mark it) or give it an info string such as text. A `rowcast ...` or `rowcastd ...`
command in running text (an inline code span on one line) gets the same --help check.

Exits 0 when every block passes, 1 naming each that does not. Needs the build (make build):
ROWCAST_BUILD_DIR (default .build/debug) holds rowcast, rowcastd and the plugins.

Usage: Tests/docs/check-doc-commands.py [DOC ...]   (default: every document above)
"""
import glob
import os
import re
import select
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import time

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
BUILD_DIR = os.path.join(ROOT, os.environ.get("ROWCAST_BUILD_DIR", ".build/debug"))
SHELL_INFOS = {"sh", "bash", "shell", "console"}
MARKER = re.compile(r"^\s*<!--\s*check:\s*(run-until-stopped|run|test\s+\S+|illustration:\s*\S.*?)\s*-->\s*$")
COMMAND_LIKE = re.compile(r"^(\$ )?(sudo )?(\.build/\w+/)?(rowcast|rowcastd|make|cc|swift|curl|python3?)( |$)")
COMMAND_SECONDS = 30
STAYS_UP_SECONDS = 2
READY_SECONDS = 30


def documents():
    """The documents the check walks, relative to the repository root: every README.md outside
    hidden folders (.build), and docs/*.md."""
    readmes = glob.glob("**/README.md", root_dir=ROOT, recursive=True)
    return sorted(readmes, key=lambda path: (path.count("/"), path)) + sorted(glob.glob("docs/*.md", root_dir=ROOT))


class Block:
    """A fenced block: its document, the line of its opening fence, info string, marker and lines."""

    def __init__(self, document, line, info, marker, lines):
        self.document, self.line, self.info, self.marker, self.lines = document, line, info, marker, lines

    def where(self):
        return "%s:%d" % (self.document, self.line)


def blocks(document):
    """Every fenced block of `document`, with the marker on the line before it (or None)."""
    with open(os.path.join(ROOT, document), encoding="utf-8") as file:
        text = file.read().split("\n")
    found, index = [], 0
    while index < len(text):
        opening = re.match(r"^(\s*)(```+)(.*)$", text[index])
        if not opening:
            index += 1
            continue
        indent, fence, info = opening.group(1), opening.group(2), opening.group(3).strip()
        previous = text[index - 1] if index > 0 else ""
        marker = MARKER.match(previous)
        lines, end = [], index + 1
        while end < len(text) and not text[end].strip().startswith(fence):
            lines.append(text[end][len(indent):] if text[end].startswith(indent) else text[end].lstrip())
            end += 1
        found.append(Block(document, index + 1, info, marker.group(1) if marker else None, lines))
        index = end + 1
    return found


def logical_lines(lines):
    """The block's commands: continuation lines joined, a here-document kept with its command,
    comment-only lines dropped except `# error: ...` right after a command, which is attached to
    it. Returns (command text, expected error or None) pairs."""
    commands, index = [], 0
    while index < len(lines):
        line = lines[index]
        index += 1
        stripped = line.strip()
        if not stripped:
            continue
        if stripped.startswith("#"):
            expected = re.match(r"^#\s*(error:.*)$", stripped)
            if expected and commands and commands[-1][1] is None:
                commands[-1] = (commands[-1][0], expected.group(1).strip())
            continue
        while line.rstrip().endswith("\\") and index < len(lines):
            line = line.rstrip()[:-1] + " " + lines[index].strip()
            index += 1
        heredoc = re.search(r"<<-?\s*'?\"?(\w+)'?\"?", line)
        if heredoc:
            terminator, body = heredoc.group(1), [line]
            while index < len(lines):
                body.append(lines[index])
                index += 1
                if lines[index - 1].strip() == terminator:
                    break
            line = "\n".join(body)
        trailing = re.search(r"\s#\s*(error:.*)$", line.split("\n")[0])
        commands.append((line, trailing.group(1).strip() if trailing else None))
    return commands


class HelpIndex:
    """The subcommands and options of `rowcast` and `rowcastd`, read from their --help."""

    def __init__(self):
        self.cache = {}

    def help(self, program, chain):
        key = (program, tuple(chain))
        if key not in self.cache:
            result = subprocess.run([os.path.join(BUILD_DIR, program), *chain, "--help"],
                                    stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=COMMAND_SECONDS)
            self.cache[key] = result.stdout.decode(errors="replace") if result.returncode == 0 else None
        return self.cache[key]

    @staticmethod
    def subcommands(text):
        section = re.search(r"\nSUBCOMMANDS:\n(.*?)(\n\n|\Z)", text, re.S)
        if not section:
            return set()
        return {match.group(1) for match in re.finditer(r"^\s+([a-z][\w-]*)", section.group(1), re.M)}

    def problems(self, argv):
        """What is wrong with one rowcast or rowcastd command line (a list of words)."""
        program = os.path.basename(argv[0])
        chain, words = [], argv[1:]
        text = self.help(program, chain)
        if text is None:
            return ["%s --help failed" % program]
        while words and not words[0].startswith("-") and words[0] in self.subcommands(text):
            chain.append(words.pop(0))
            text = self.help(program, chain)
            if text is None:
                return ["%s --help failed" % " ".join([program] + chain)]
        # A default subcommand (`rowcast quarantine` is `rowcast quarantine list`) takes the options.
        default = re.search(r"^\s+([a-z][\w-]*) \(default\)", text, re.M)
        if default:
            text += self.help(program, chain + [default.group(1)]) or ""
        problems = []
        for word in words:
            if word.startswith("--"):
                option = word.split("=", 1)[0]
                if option != "--help" and not re.search(r"(?<![\w-])%s(?![\w-])" % re.escape(option), text):
                    problems.append("%s has no option %s" % (" ".join([program] + chain), option))
        return problems


def command_words(command):
    """The rowcast and rowcastd invocations in a shell command (argument lists), skipping sudo,
    `sudo -u USER`, variable assignments, and here-document bodies."""
    first_line = command.split("\n")[0]
    lexer = shlex.shlex(first_line, posix=True, punctuation_chars=";&|<>()")
    lexer.whitespace_split = True
    lexer.commenters = "#"
    try:
        tokens = list(lexer)
    except ValueError:
        return []
    invocations, current = [], []
    for token in tokens + [";"]:
        if token and set(token) <= set(";&|<>()"):
            invocations.append(current)
            current = []
        else:
            current.append(token)
    found = []
    for words in invocations:
        while words and (re.match(r"^\w+=", words[0]) or words[0] in ("sudo", "exec", "time", "env")):
            if words[0] == "sudo" and len(words) > 2 and words[1] == "-u":
                words = words[3:]
            else:
                words = words[1:]
        if words and os.path.basename(words[0]) in ("rowcast", "rowcastd"):
            found.append(words)
    return found


class Walk:
    """The scratch folder and the rowcastd one document's runnable blocks share."""

    def __init__(self, plugins):
        self.folder = tempfile.mkdtemp(prefix="rowcast-doc-walk-")
        for entry in os.listdir(ROOT):
            if entry != ".git":
                os.symlink(os.path.join(ROOT, entry), os.path.join(self.folder, entry))
        self.state = tempfile.mkdtemp(prefix="rowcast-doc-state-")
        cells = []
        for folder in sorted(glob.glob(os.path.join(ROOT, "Examples/*/cells"))):
            cells += ["--cells", folder]
        self.log = open(os.path.join(self.state, "rowcastd.log"), "wb")
        self.daemon = subprocess.Popen(
            [os.path.join(BUILD_DIR, "rowcastd"), "--ingest", "tcp://127.0.0.1:*", "--control", "tcp://127.0.0.1:*",
             "--publish", "tcp://127.0.0.1:*", "--http", "tcp://127.0.0.1:0", "--plugins", plugins,
             "--state-dir", self.state, "--heartbeat-ms", "200", *cells],
            stdout=subprocess.PIPE, stderr=self.log, start_new_session=True)
        self.endpoints = self.ready_line()
        self.environment = dict(os.environ)
        self.environment.update({
            "PATH": BUILD_DIR + os.pathsep + os.environ.get("PATH", ""),
            "ROWCAST_CONTROL": self.endpoints["control"], "ROWCAST_PUBLISH": self.endpoints["publish"],
            "ROWCAST_INGEST": self.endpoints["ingest"],
        })

    def ready_line(self):
        """The endpoints of rowcastd's ready line, read within READY_SECONDS."""
        deadline, buffer = time.monotonic() + READY_SECONDS, b""
        while time.monotonic() < deadline and self.daemon.poll() is None:
            readable, _, _ = select.select([self.daemon.stdout], [], [], 0.1)
            if readable:
                buffer += os.read(self.daemon.stdout.fileno(), 4096)
                for line in buffer.decode(errors="replace").splitlines():
                    if line.startswith("rowcastd ready "):
                        return dict(field.split("=", 1) for field in line.split()[2:])
        self.close()
        raise RuntimeError("rowcastd printed no ready line within %d s (exit %s)" % (READY_SECONDS, self.daemon.poll()))

    def run(self, command, expected_error):
        """Runs one command to its end; what is wrong with it, or None."""
        process = subprocess.Popen(["/bin/sh", "-c", command], cwd=self.folder, env=self.environment,
                                   stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                   start_new_session=True)
        try:
            output = process.communicate(timeout=COMMAND_SECONDS)[0].decode(errors="replace")
        except subprocess.TimeoutExpired:
            stop(process)
            process.communicate()
            return "did not end within %d s" % COMMAND_SECONDS
        if expected_error is None and process.returncode != 0:
            return "exit status %d: %s" % (process.returncode, output.strip()[-1500:])
        if expected_error is not None:
            if process.returncode == 0:
                return "succeeded, though the doc shows `%s`" % expected_error
            if expected_error not in output:
                return "printed no `%s`: %s" % (expected_error, output.strip()[-1500:])
        return None

    def run_until_stopped(self, command):
        """Starts a command that runs until stopped; what is wrong with it, or None."""
        process = subprocess.Popen(["/bin/sh", "-c", command], cwd=self.folder, env=self.environment,
                                   stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                   start_new_session=True)
        time.sleep(STAYS_UP_SECONDS)
        status = process.poll()
        stop(process)
        output = process.stdout.read().decode(errors="replace")
        process.stdout.close()
        if status not in (None, 0):
            return "exit status %d within %d s: %s" % (status, STAYS_UP_SECONDS, output.strip()[-1500:])
        if "error:" in output:
            return "printed an error: %s" % output.strip()[-1500:]
        return None

    def close(self):
        """Stops rowcastd and removes the scratch folder and the state."""
        stop(self.daemon)
        self.daemon.stdout.close()
        self.log.close()
        shutil.rmtree(self.folder, ignore_errors=True)
        shutil.rmtree(self.state, ignore_errors=True)


def stop(process):
    """SIGTERM to the process's group, SIGKILL after 10 s."""
    if process.poll() is not None:
        return
    try:
        os.killpg(process.pid, signal.SIGTERM)
        process.wait(timeout=10)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        process.wait(timeout=10)
    except ProcessLookupError:
        pass


def plugin_directory():
    """A folder with the plugins `make run` gives rowcastd: the two built ones, and each
    Examples/*/plugin/*.c compiled as the Makefile's examples target compiles it."""
    folder = tempfile.mkdtemp(prefix="rowcast-doc-plugins-")
    for name in ("librowcast-product.so", "librowcast-advertising.so"):
        shutil.copy(os.path.join(BUILD_DIR, name), folder)
    compiler = os.environ.get("CC", "cc")
    for source in sorted(glob.glob(os.path.join(ROOT, "Examples/*/plugin/*.c"))):
        library = os.path.join(folder, "librowcast-%s.so" % os.path.splitext(os.path.basename(source))[0])
        subprocess.run([compiler, "-std=c11", "-O2", "-shared", "-fPIC", "-I",
                        os.path.join(ROOT, "SDK/Sources/CRowCastPlugin/include"), source, "-o", library], check=True)
    for library in os.listdir(folder):
        os.chmod(os.path.join(folder, library), 0o644)
    return folder


def test_names_document(name, document):
    """None when a test file NAME.swift or NAME.py under Tests/ exists and names `document`, else
    what is wrong."""
    for path in glob.glob(os.path.join(ROOT, "Tests", "**", name + ".*"), recursive=True):
        if path.endswith((".swift", ".py")):
            with open(path, encoding="utf-8") as file:
                if document in file.read():
                    return None
            return "%s does not name %s" % (os.path.relpath(path, ROOT), document)
    return "no test file Tests/**/%s.swift or .py" % name


def inline_problems(document, helps):
    """What is wrong with the rowcast and rowcastd commands in `document`'s running text: inline
    code spans on one line, outside fenced blocks, that start with one of them."""
    problems = []
    with open(os.path.join(ROOT, document), encoding="utf-8") as file:
        lines = file.read().split("\n")
    fenced = False
    for number, line in enumerate(lines, start=1):
        if line.strip().startswith("```"):
            fenced = not fenced
            continue
        if fenced:
            continue
        for span in re.findall(r"`([^`]+)`", line):
            if re.match(r"^(\.build/\w+/)?rowcastd? ", span):
                for words in command_words(span):
                    problems += ["%s:%d: `%s`: %s" % (document, number, span, problem)
                                 for problem in helps.problems(words)]
    return problems


def check(document, helps, plugins):
    """The failures of one document's blocks and running text (strings), and how many blocks
    it checked."""
    failures, checked, walk = inline_problems(document, helps), 0, None
    try:
        for block in blocks(document):
            if block.info.split(" ")[0] not in SHELL_INFOS:
                if block.info == "" and any(COMMAND_LIKE.match(line) for line in block.lines):
                    failures.append("%s: an unlabeled block of commands; label it ```sh and mark it" % block.where())
                continue
            checked += 1
            if block.marker is None:
                failures.append("%s: a command block without a <!-- check: ... --> marker on the line before it"
                                % block.where())
                continue
            commands = logical_lines(block.lines)
            for command, _ in commands:
                for words in command_words(command):
                    failures += ["%s: `%s`: %s" % (block.where(), command.split("\n")[0], problem)
                                 for problem in helps.problems(words)]
            if block.marker.startswith("test"):
                problem = test_names_document(block.marker.split()[1], document)
                if problem:
                    failures.append("%s: %s" % (block.where(), problem))
            elif block.marker.startswith("run"):
                if walk is None:
                    try:
                        walk = Walk(plugins)
                    except RuntimeError as error:
                        failures.append("%s: %s" % (block.where(), error))
                        break
                for command, expected_error in commands:
                    if re.match(r"^make run(\s|$)", command):
                        continue
                    if block.marker == "run-until-stopped":
                        problem = walk.run_until_stopped(command)
                    else:
                        problem = walk.run(command, expected_error)
                    if problem:
                        failures.append("%s: `%s`: %s" % (block.where(), command.split("\n")[0], problem))
    finally:
        if walk is not None:
            walk.close()
    return failures, checked


def main(arguments):
    for program in ("rowcast", "rowcastd", "librowcast-product.so", "librowcast-advertising.so"):
        if not os.path.exists(os.path.join(BUILD_DIR, program)):
            print("check-doc-commands: %s is not built; run make build first" % os.path.join(BUILD_DIR, program),
                  file=sys.stderr)
            return 1
    started = time.monotonic()
    helps, plugins = HelpIndex(), plugin_directory()
    failures, checked = [], 0
    try:
        for document in arguments or documents():
            found, count = check(document, helps, plugins)
            failures += found
            checked += count
    finally:
        shutil.rmtree(plugins, ignore_errors=True)
    for failure in failures:
        print("check-doc-commands: " + failure, file=sys.stderr)
    if failures:
        print("check-doc-commands: %d problems; see docs/TESTING.md, \"Commands in the docs\"" % len(failures),
              file=sys.stderr)
        return 1
    print("check-doc-commands: %d command blocks checked in %.1f s" % (checked, time.monotonic() - started))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
