"""What poison items cost another feed: starts rowcastd (debug or release build directory as the
first argument) with the product and fault plugins, pushes N items whose plugin crashes
("segv") or hangs ("hang") over ingest, then times one acked upsert to another feed.

    make build && make examples
    python3 Benchmarks/scripts/poison-cost.py .build/debug hang 20
    python3 Benchmarks/scripts/poison-cost.py .build/debug segv 100

The fault plugin is compiled from Tests/Fixtures/c-plugin/fault_plugin.c into a temporary
directory; rowcastd's state lives there too and is removed at the end."""
import json, os, shutil, subprocess, sys, tempfile, time
import zmq

build, poison, count = sys.argv[1], sys.argv[2], int(sys.argv[3])
work = tempfile.mkdtemp(prefix="rowcast-poison-")
plugins = os.path.join(work, "plugins")
os.makedirs(plugins)
os.chmod(work, 0o755)
os.chmod(plugins, 0o755)
shutil.copy(os.path.join(build, "librowcast-product.so"), plugins)
subprocess.run(["cc", "-std=c11", "-O1", "-shared", "-fPIC", "-I", "SDK/Sources/CRowCastPlugin/include",
                "Tests/Fixtures/c-plugin/fault_plugin.c", "-o", os.path.join(plugins, "librowcast-fault.so")],
               check=True)
daemon = subprocess.Popen(
    [os.path.join(build, "rowcastd"), "--ingest", "tcp://127.0.0.1:*", "--control", "tcp://127.0.0.1:*",
     "--publish", "tcp://127.0.0.1:*", "--http", "", "--plugins", plugins, "--state-dir",
     os.path.join(work, "state"), "--plugin-isolation", "process"],
    stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
try:
    endpoints = dict(field.split("=", 1) for field in daemon.stdout.readline().split()[2:])
    context = zmq.Context()
    push = context.socket(zmq.PUSH)
    push.connect(endpoints["ingest"])
    dealer = context.socket(zmq.DEALER)
    dealer.connect(endpoints["control"])
    dealer.setsockopt(zmq.RCVTIMEO, 120000)

    def request(body):
        dealer.send_multipart([b"", json.dumps(body, separators=(",", ":")).encode()])
        return json.loads(dealer.recv_multipart()[1])

    car = {"name": "x", "operatedBy": "y", "price": 1, "image": "https://i/x"}
    request({"op": "upsert", "feed": "cars", "item": {"id": "warm", "type": "product", "data": car}})
    for _ in range(count):
        push.send(json.dumps({"op": "upsert", "feed": "poison", "item": {"id": poison, "type": "fault"}},
                             separators=(",", ":")).encode())
    time.sleep(0.002)
    started = time.monotonic()
    reply = request({"op": "upsert", "feed": "cars", "item": {"id": "c1", "type": "product", "data": car}})
    print("%d %s items pushed; acked upsert to another feed after %.3f s (ok=%s)"
          % (count, poison, time.monotonic() - started, reply.get("ok")))
finally:
    daemon.terminate()
    try:
        daemon.wait(timeout=60)
    except subprocess.TimeoutExpired:
        daemon.kill()
    shutil.rmtree(work, ignore_errors=True)
