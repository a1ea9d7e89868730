#!/bin/sh
# How long rowcastd takes to become ready after a restart over F one-item feeds and one feed of
# B items: `Benchmarks/scripts/restart-ready.sh [feeds] [big feed items] [build dir]` (default
# 20000 feeds and 500000 items, .build/release). Prints the ready time after a restart with
# the same plugins, then after a restart with the product plugin's file touched (a changed
# plugin: its rows are rendered again in the background; `stale_done_s` is when the last one
# was, from the start), and the database's size.
# Loopback only; the state lives in a temporary directory that is removed at the end.
set -eu
FEEDS=${1:-20000}
BIG=${2:-500000}
BUILD=${3:-.build/release}
WORK=$(mktemp -d)
PID=
trap 'kill $PID 2>/dev/null || true; rm -rf "$WORK"' EXIT
PORTS="--ingest tcp://127.0.0.1:17811 --control tcp://127.0.0.1:17812 --publish tcp://127.0.0.1:17813 --http tcp://127.0.0.1:17814"
mkdir "$WORK/plugins"
cp "$BUILD"/librowcast-product.so "$WORK/plugins/"

start() {
    : >"$WORK/out"
    "$BUILD/rowcastd" $PORTS --plugins "$WORK/plugins" --state-dir "$WORK/state" --max-message-bytes 4194304 \
        >"$WORK/out" 2>>"$WORK/log" &
    PID=$!
    STARTED=$(date +%s.%N)
    while ! grep -q "rowcastd ready" "$WORK/out"; do sleep 0.05; done
    READY=$(echo "$(date +%s.%N) - $STARTED" | bc)
}
stop() { kill -TERM $PID; wait $PID || true; }
status() { "$BUILD/rowcast" status --control tcp://127.0.0.1:17812 --json --timeout 120; }
rows() { status | python3 -c 'import json,sys; print(sum(f.get("rows", 0) for f in json.load(sys.stdin)["feeds"]))'; }
stale() { status | python3 -c 'import json,sys; print(json.load(sys.stdin).get("staleRows", 0))'; }

python3 - "$FEEDS" "$BIG" >"$WORK/requests.ndjson" <<'END'
import json, sys
feeds, big = int(sys.argv[1]), int(sys.argv[2])
def item(i):
    return {"id": str(i), "type": "product",
            "data": {"name": f"Model {i}", "operatedBy": "Tesla", "price": 39999, "image": f"https://img/{i}.png"}}
for f in range(feeds):
    print(json.dumps({"op": "upsert", "feed": f"f{f}", "item": item(0)}))
for i in range(big):
    print(json.dumps({"op": "upsert", "feed": "big", "item": item(i)}))
END

start
FIRST=$READY
"$BUILD/rowcast" publish --ingest tcp://127.0.0.1:17811 --no-ack --file "$WORK/requests.ndjson" >/dev/null
while [ "$(rows)" -lt $((FEEDS + BIG)) ]; do sleep 1; done
stop
start
SAME=$READY
stop
touch "$WORK/plugins/librowcast-product.so"
start
CHANGED=$READY
while [ "$(stale)" -gt 0 ]; do sleep 0.2; done
STALE_DONE=$(echo "$(date +%s.%N) - $STARTED" | bc)
stop
DB_KB=$(du -k "$WORK/state/rowcast.db" | cut -f1)
echo "feeds=$FEEDS big_feed_items=$BIG first_ready_s=$FIRST ready_same_plugins_s=$SAME ready_plugin_changed_s=$CHANGED stale_done_s=$STALE_DONE db_kb=$DB_KB"
