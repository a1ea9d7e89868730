#!/usr/bin/env python3
"""rowcast publish --file of many items shows a progress line on a terminal (a pseudo-terminal
here, from Python's pty), and none when its output is not a terminal."""
import json
import os
import pty
import select
import subprocess
import tempfile
import time
import unittest

from gateway_support import BUILD_DIR, RowcastDaemon, product

ITEMS = 20000
SECONDS = 120


class PublishProgressTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.daemon = RowcastDaemon()
        handle, cls.items = tempfile.mkstemp(prefix="rowcast-progress-", suffix=".ndjson")
        with os.fdopen(handle, "w") as out:
            for index in range(ITEMS):
                out.write(json.dumps(product(str(index))) + "\n")

    @classmethod
    def tearDownClass(cls):
        cls.daemon.close()
        os.unlink(cls.items)

    def command(self, feed):
        return [os.path.join(BUILD_DIR, "rowcast"), "publish", "--feed", feed, "--file", self.items,
                "--control", self.daemon.endpoints["control"]]

    def test_a_terminal_shows_progress_lines(self):
        controller, terminal = pty.openpty()
        process = subprocess.Popen(self.command("on-terminal"), stdin=subprocess.DEVNULL, stdout=terminal,
                                   stderr=terminal, env=dict(os.environ, TERM="xterm"))
        os.close(terminal)
        output = b""
        deadline = time.monotonic() + SECONDS
        try:
            while time.monotonic() < deadline:
                ready, _, _ = select.select([controller], [], [], 1)
                if not ready:
                    if process.poll() is not None:
                        break
                    continue
                try:
                    chunk = os.read(controller, 65536)
                except OSError:  # EIO: the child closed the terminal
                    break
                if not chunk:
                    break
                output += chunk
        finally:
            os.close(controller)
            if process.poll() is None:
                process.kill()
            status = process.wait(10)
        text = output.decode("utf-8", "replace")
        self.assertEqual(status, 0, text[-2000:])
        self.assertIn("ok on-terminal seq=", text)
        self.assertIn("\r\x1b[K" + "sent ", text, "no progress line drawn")
        self.assertRegex(text, r"sent [0-9,]+ of 20,000, answered [0-9,]+ · [0-9,]+/s · [0-9]+ s left")
        # The line is erased at the end: no progress text after the last erase.
        self.assertNotIn("answered", text[text.rfind("\x1b[K") + 3:], text[-300:])

    def test_no_terminal_no_progress(self):
        result = subprocess.run(self.command("in-pipe"), stdin=subprocess.DEVNULL, capture_output=True,
                                timeout=SECONDS, env=dict(os.environ, TERM="xterm"))
        self.assertEqual(result.returncode, 0, result.stderr[-2000:])
        self.assertNotIn(b"answered", result.stderr)
        self.assertNotIn(b"\x1b[K", result.stderr + result.stdout)
        self.assertEqual(result.stdout.count(b"ok in-pipe seq="), ITEMS)


if __name__ == "__main__":
    unittest.main(verbosity=2)
