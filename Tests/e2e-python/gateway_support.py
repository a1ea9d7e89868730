"""Processes and clients shared by the gateway's end-to-end tests (test_gateway_*.py).

RowcastDaemon and Gateway start a real rowcastd and a real `rowcast serve`, each able to
restart on the same endpoints (and state); Control speaks the control socket with pyzmq.
Every wait is bounded and every process is stopped by its owner.
"""
import json
import os
import select
import shutil
import signal
import socket
import subprocess
import tempfile
import time
import urllib.error
import urllib.request

import zmq

BUILD_DIR = os.environ.get("ROWCAST_BUILD_DIR", ".build/debug")
READY_SECONDS = 30


def read_ready_line(process, prefix, seconds=READY_SECONDS):
    """The first line of `process`'s standard output that starts with `prefix`."""
    deadline = time.monotonic() + seconds
    buffer = b""
    while time.monotonic() < deadline:
        readable, _, _ = select.select([process.stdout], [], [], 0.1)
        if readable:
            chunk = os.read(process.stdout.fileno(), 4096)
            if not chunk:
                break
            buffer += chunk
            for line in buffer.decode(errors="replace").splitlines():
                if line.startswith(prefix):
                    return line
        if process.poll() is not None:
            break
    raise RuntimeError("%s did not print its ready line within %d s (exit %s): %r"
                       % (prefix.split()[0], seconds, process.poll(), buffer[-2000:]))


def start_logged(command, log):
    """`command` started with its standard output piped and its standard error appended to the
    file `log` (a path), or sent nowhere when `log` is None."""
    if log is None:
        return subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    with open(log, "ab") as stderr:
        return subprocess.Popen(command, stdout=subprocess.PIPE, stderr=stderr)


def stop_process(process):
    """SIGTERM, then SIGKILL after 10 s; never leaves `process` behind."""
    if process is None:
        return
    if process.poll() is None:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=10)
    if process.stdout:
        process.stdout.close()


class RowcastDaemon:
    """rowcastd with both real plugins; restart() brings it back on the same endpoints and state."""

    def __init__(self, http=False, extra_args=(), log=None):
        """With `http`, fixed ports and its own HTTP endpoint, which then serves the gateway too
        (endpoints["http"]); without, no HTTP endpoint at all. `extra_args` go on its command
        line; its standard error goes to the file `log` (a path), else nowhere."""
        self.extra_args = list(extra_args)
        self.log = log
        self.plugins = tempfile.mkdtemp(prefix="rowcast-gw-plugins-")
        self.state = tempfile.mkdtemp(prefix="rowcast-gw-state-")
        for name in ("librowcast-product.so", "librowcast-advertising.so"):
            shutil.copy(os.path.join(BUILD_DIR, name), self.plugins)
        self.process = None
        if http:
            self.endpoints = {"ingest": "tcp://127.0.0.1:*", "control": "tcp://127.0.0.1:%d" % free_port(),
                              "publish": "tcp://127.0.0.1:%d" % free_port(), "http": "tcp://127.0.0.1:%d" % free_port()}
        else:
            self.endpoints = {"ingest": "tcp://127.0.0.1:*", "control": "tcp://127.0.0.1:*",
                              "publish": "tcp://127.0.0.1:*", "http": ""}
        self.start()

    def start(self):
        self.process = start_logged(
            [os.path.join(BUILD_DIR, "rowcastd"), "--ingest", self.endpoints["ingest"],
             "--control", self.endpoints["control"], "--publish", self.endpoints["publish"],
             "--http", self.endpoints.get("http", ""),
             "--plugins", self.plugins, "--state-dir", self.state, "--heartbeat-ms", "200", *self.extra_args],
            self.log)
        try:
            line = read_ready_line(self.process, "rowcastd ready ")
        except BaseException:
            self.stop()
            raise
        self.endpoints = dict(field.split("=", 1) for field in line.split()[2:])

    def restart(self):
        stop_process(self.process)
        self.start()

    def stop(self):
        stop_process(self.process)
        self.process = None

    def close(self):
        self.stop()
        shutil.rmtree(self.plugins, ignore_errors=True)
        shutil.rmtree(self.state, ignore_errors=True)


class Gateway:
    """`rowcast serve` on loopback; restart() brings it back on the same port."""

    def __init__(self, daemon, extra_args=(), log=None):
        """`extra_args` go on its command line; its standard error goes to the file `log` (a
        path), else nowhere."""
        self.daemon = daemon
        self.extra_args = list(extra_args)
        self.log = log
        self.port = 0
        self.process = None
        self.start()

    def start(self):
        self.process = start_logged(
            [os.path.join(BUILD_DIR, "rowcast"), "serve", "--http", "127.0.0.1:%d" % self.port,
             "--control", self.daemon.endpoints["control"], "--publish", self.daemon.endpoints["publish"],
             *self.extra_args],
            self.log)
        try:
            line = read_ready_line(self.process, "rowcast serve ready ")
        except BaseException:
            self.stop()
            raise
        fields = dict(field.split("=", 1) for field in line.split()[3:])
        self.url = fields["http"]
        self.port = int(self.url.rsplit(":", 1)[1])

    def restart(self):
        self.stop()
        self.start()

    def stop(self):
        stop_process(self.process)
        self.process = None

    def get(self, path, headers=None):
        """(status, content type, body text) of GET `path`."""
        return self.request("GET", path, headers=headers)

    def request(self, method, path, body=None, headers=None):
        request = urllib.request.Request(self.url + path, data=body, method=method, headers=headers or {})
        try:
            with urllib.request.urlopen(request, timeout=10) as response:
                return response.status, response.headers.get("Content-Type", ""), response.read().decode()
        except urllib.error.HTTPError as error:
            return error.code, error.headers.get("Content-Type", ""), error.read().decode()


class Control:
    """A DEALER on the daemon's control socket: one request, its reply (5 s at most)."""

    def __init__(self, daemon):
        self.daemon = daemon
        self.context = zmq.Context()
        self.req = 0
        self.socket = None
        self.connect()

    def connect(self):
        if self.socket is not None:
            self.socket.close(0)
        self.socket = self.context.socket(zmq.DEALER)
        self.socket.setsockopt(zmq.LINGER, 0)
        self.socket.setsockopt(zmq.RCVTIMEO, 5000)
        self.socket.connect(self.daemon.endpoints["control"])

    def request(self, body):
        self.req += 1
        body = dict(body, req=self.req)
        self.socket.send_multipart([b"", json.dumps(body).encode()])
        while True:
            _, reply = self.socket.recv_multipart()
            reply = json.loads(reply)
            if reply.get("req") == self.req:
                if not reply.get("ok"):
                    raise AssertionError("request %r failed: %r" % (body, reply))
                return reply

    def snapshot(self, feed):
        reply = self.request({"op": "snapshot", "feed": feed})
        return {"seq": reply["seq"], "epoch": reply["epoch"], "sections": reply["sections"]}

    def close(self):
        self.socket.close(0)
        self.context.term()


def product(item_id, name=None, price=39999, section=None, sort=None):
    item = {"id": item_id, "type": "product",
            "data": {"name": name or ("Car " + item_id), "operatedBy": "Tesla", "price": price,
                     "image": "car-" + item_id + ".png"}}
    if section is not None:
        item["section"] = section
    if sort is not None:
        item["sort"] = sort
    return item


def advertising(item_id, section="ads"):
    return {"id": item_id, "type": "advertising", "section": section,
            "data": {"name": "Ad " + item_id, "operatedBy": "Bob", "price": 5, "image": "ad.png",
                     "url": "https://ads.example/" + item_id}}


def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]
