#!/usr/bin/env bash
# The unit under a real systemd: boots this machine's own OS as a throwaway container
# (systemd-nspawn --volatile=yes: a tmpfs root with the host's /usr read-only, so no image to
# build), puts the `make install` tree STAGE in it and drives rowcastd.service with systemctl:
# start (active only once READY=1 came), reload (SIGHUP: RELOADING=1 ... READY=1), a loop stuck
# in a plugin killed by the watchdog, and Restart=on-failure bringing it back with the same
# feed epoch. Usage (as root): Tests/systemd/nspawn-test.sh STAGE, where STAGE was made by
#     make install DESTDIR=STAGE PREFIX=/usr/local
# `make test-systemd` does both. Prints "SKIP: ..." and exits 0 when this machine cannot boot a
# container (ROWCAST_SYSTEMD_REQUIRED=1 makes that a failure). Every wait is bounded.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
stage=$(cd "${1:?usage: $0 STAGE}" && pwd)
machine="rowcast-test-$$"

skip() {
    echo "SKIP: test-systemd: $*"
    [ "${ROWCAST_SYSTEMD_REQUIRED:-0}" = 1 ] && exit 1
    exit 0
}
fail() { echo "FAIL: test-systemd: $*" >&2; exit 1; }
step() { echo "-- $*"; }

[ "$(id -u)" = 0 ] || skip "needs root (systemd-nspawn)"
command -v systemd-nspawn >/dev/null || skip "no systemd-nspawn (apt-get install systemd-container)"
[ -x /lib/systemd/systemd ] || skip "no /lib/systemd/systemd to boot"
[ -x "$stage/usr/local/bin/rowcastd" ] || fail "$stage has no usr/local/bin/rowcastd (make install DESTDIR=$stage PREFIX=/usr/local)"

work=$(mktemp -d /tmp/rowcast-nspawn.XXXXXX)
nspawn_pid=""
booted=""
cleanup() {
    status=$?
    if [ "$status" != 0 ] && [ -n "$booted" ]; then
        echo "--- journalctl -u rowcastd (last 60 lines):" >&2; journal -n 60 >&2 || true
    fi
    if [ -n "$nspawn_pid" ] && kill -0 "$nspawn_pid" 2>/dev/null; then
        # SIGTERM asks nspawn to shut the container down cleanly; a second signal, then SIGKILL,
        # only if that does not end it in time.
        kill -TERM "$nspawn_pid" 2>/dev/null || true
        for _ in $(seq 60); do kill -0 "$nspawn_pid" 2>/dev/null || break; sleep 0.5; done
        kill -TERM "$nspawn_pid" 2>/dev/null || true; sleep 1
        kill -KILL "$nspawn_pid" 2>/dev/null || true
        wait "$nspawn_pid" 2>/dev/null || true
    fi
    if [ "$status" != 0 ] && [ -s "$work/container.log" ]; then
        echo "--- the container's console (last 40 lines):" >&2; tail -40 "$work/container.log" >&2
    fi
    # nspawn leaves this (empty) directory behind when it stops.
    rm -rf "/run/systemd/nspawn/propagate/$machine" "$work"
    exit "$status"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# What the container gets besides the host's /usr: the installed tree at /usr/local (read-only,
# as a package would be), a writable copy of /etc/rowcast (the reload step edits it), the Swift
# runtime the binaries link against (when it lives outside /usr), the fault fixture, and
# /srv/rowcast-test for the files the steps below hand in.
cp -a "$stage/etc/rowcast" "$work/etc-rowcast"
install -d -m 0755 "$work/test-plugins" "$work/files"
cc -std=c11 -O1 -shared -fPIC -I "$repo/SDK/Sources/CRowCastPlugin/include" \
    "$repo/Tests/Fixtures/c-plugin/fault_plugin.c" -o "$work/test-plugins/librowcast-fault.so"
chmod 0644 "$work/test-plugins/librowcast-fault.so"
binds=(--bind-ro="$stage/usr/local:/usr/local" --bind="$work/etc-rowcast:/etc/rowcast"
       --bind-ro="$work/test-plugins:/srv/rowcast-test-plugins" --bind-ro="$work/files:/srv/rowcast-test"
       --bind-ro="$work/test.preset:/etc/systemd/system-preset/00-rowcast-test.preset")
echo "disable *" > "$work/test.preset"
for lib in $(ldd "$stage/usr/local/bin/rowcastd" | awk '$3 ~ /^\// {print $3}'); do
    case "$lib" in /usr/*|/lib/*|/lib64/*) ;; *) echo "$(dirname "$lib")";; esac
done | sort -u > "$work/libdirs"
while read -r dir; do binds+=(--bind-ro="$dir"); done < "$work/libdirs"

step "booting the host's OS in a container ($machine)"
# --register=no --keep-unit: no machined or host systemd to talk to (PID 1 here may be anything).
# --private-network: the container has only its own loopback. The empty /etc of a volatile root
# makes this a first boot: systemd-firstboot.service would fail without a console (masked), and
# the presets would enable every service installed here, rowcastd among them, and start them at
# boot (test.preset disables them: the test starts rowcastd, and nothing else needs to run).
systemd-nspawn --quiet --directory=/ --volatile=yes --machine="$machine" --register=no --keep-unit \
    --private-network --link-journal=no --console=pipe "${binds[@]}" \
    --boot systemd.mask=systemd-firstboot.service > "$work/container.log" 2>&1 < /dev/null &
nspawn_pid=$!

# The container's PID 1, as seen from here: nspawn's child.
init_pid=""
deadline=$((SECONDS + 30))
while (( SECONDS < deadline )); do
    kill -0 "$nspawn_pid" 2>/dev/null || break
    # nspawn's first child only sets up the container and exits; PID 1 is the one running systemd.
    for pid in $(pgrep -P "$nspawn_pid" || true); do
        [ "$(cat "/proc/$pid/comm" 2>/dev/null)" = systemd ] && init_pid=$pid
    done
    [ -n "$init_pid" ] && break
    sleep 0.5
done
[ -n "$init_pid" ] || skip "systemd-nspawn started no container within 30 s: $(tail -5 "$work/container.log" | tr '\n' ' ')"

# Runs a command inside the container (every namespace of its PID 1), bounded.
in_ct() { timeout 90 nsenter --target "$init_pid" --all --wd=/ -- "$@"; }
# Until systemd listens, systemctl cannot connect and says nothing; then it says "starting".
state=""
deadline=$((SECONDS + 90))
while (( SECONDS < deadline )); do
    kill -0 "$nspawn_pid" 2>/dev/null || break
    state=$(in_ct systemctl is-system-running 2>/dev/null || true)
    case "$state" in running|degraded) break ;; esac
    sleep 0.5
done
case "$state" in
    running|degraded) echo "booted: $state" ;;
    *) skip "the container's systemd did not finish booting within 90 s (is-system-running: ${state:-no answer}): $(tail -5 "$work/container.log" | tr '\n' ' ')" ;;
esac
[ "$state" = running ] || in_ct systemctl --failed --no-pager || true
booted=yes

# From here on a problem is a failure, not a skip: the container boots.
show() { in_ct systemctl show rowcastd --value -p "$1"; }
journal() { in_ct journalctl -u rowcastd --no-pager -o short-monotonic "$@"; }
# Whether the unit's journal holds a line matching the extended regular expression $1, waiting
# up to 15 s for it: the daemon's stderr reaches journald through a stream that can lag behind
# systemd's own messages (a reload's "rowcastd: reloaded" was once not there yet when
# `systemctl reload` returned). (Not journal | grep -q: grep's early exit would fail the
# pipeline with SIGPIPE under pipefail.)
logged() {
    local text tries=0
    while :; do
        text=$(journal)
        grep -Eq "$1" <<<"$text" && return 0
        (( ++tries >= 30 )) && return 1
        sleep 0.5
    done
}
rowcast() {
    in_ct env ROWCAST_CONTROL=ipc:///run/rowcast/control.sock ROWCAST_PUBLISH=ipc:///run/rowcast/publish.sock \
        ROWCAST_INGEST=ipc:///run/rowcast/ingest.sock /usr/local/bin/rowcast "$@"
}
# The epoch of FEED in `rowcast status --json`.
epoch() {
    rowcast status --json | python3 -c '
import json, sys
feed = sys.argv[1]
for f in json.load(sys.stdin)["feeds"]:
    if f["feed"] == feed: print(f["epoch"]); break
else: sys.exit("no feed " + feed)' "$1"
}

# --- start ---------------------------------------------------------------------------------
step "systemctl start rowcastd"
# systemd-sysusers ran at boot and read /usr/local/lib/sysusers.d/rowcast.conf.
in_ct getent passwd rowcast >/dev/null || fail "no user rowcast: sysusers did not read /usr/local/lib/sysusers.d"
[ "$(show Type)" = notify ] || fail "the unit is not Type=notify"
# Type=notify: start returns once rowcastd sent READY=1 (it fails if none comes within
# TimeoutStartSec), and only then is the unit active (running).
in_ct systemctl start rowcastd || fail "systemctl start rowcastd failed"
[ "$(show ActiveState)/$(show SubState)" = active/running ] || fail "after start: $(show ActiveState)/$(show SubState)"
logged "rowcastd ready ingest=ipc:///run/rowcast/ingest.sock" || fail "no ready line in the journal"
status_text=$(show StatusText)
[ -n "$status_text" ] || fail "no STATUS= from rowcastd"
echo "active (running): $status_text"
pid1=$(show MainPID)
# As installed: the sockets belong to the group rowcast, mode 0660 (docs/OPERATIONS.md).
for socket in ingest control publish http; do
    owner=$(in_ct stat -c '%G %a' "/run/rowcast/$socket.sock")
    [ "$owner" = "rowcast 660" ] || fail "/run/rowcast/$socket.sock: group and mode $owner, not rowcast 660"
done

printf '%s\n' '{"id":"1","type":"product","data":{"name":"Model 3","operatedBy":"Tesla","price":39999,"image":"https://img/1.png"}}' \
    > "$work/files/item.json"
rowcast publish --feed cars --file /srv/rowcast-test/item.json || fail "publish to the started service failed"
epoch_before=$(epoch cars)
echo "feed cars: epoch $epoch_before"
# The hosts confine themselves under the unit too (docs/OPERATIONS.md, "What confines a host"):
# as the service's user, at least with their own seccomp filter; what is missing is listed.
report=$(rowcast status)
confinement=$(grep '^confinement of product:' <<<"$report") || fail "rowcast status names no confinement: $report"
echo "$confinement"
grep '^product not confined by' <<<"$report" || true
grep -qE '(: |, )seccomp(,|$)' <<<"$confinement" || fail "the product host runs without its seccomp filter"

# --- reload --------------------------------------------------------------------------------
step "systemctl reload rowcastd"
# A change a reload applies (docs: "reload: yes").
echo 'heartbeat_ms: 2000' >> "$work/etc-rowcast/rowcastd.yaml"
in_ct systemctl reload rowcastd || fail "systemctl reload failed"
# ExecReload= only sends SIGHUP, and with Type=notify systemd 252 lets `systemctl reload`
# return once the signal is sent (docs/OPERATIONS.md): rowcastd's RELOADING=1 may reach systemd
# after that, so the unit can be "reloading" for a moment here. Wait for the daemon's own
# "reloaded" line, then (at most 15 s) for active/running again.
logged "rowcastd: reloaded" || fail "rowcastd did not log the reload"
unit_state=""
for _ in $(seq 30); do
    unit_state="$(show ActiveState)/$(show SubState)"
    [ "$unit_state" = active/running ] && break
    sleep 0.5
done
[ "$unit_state" = active/running ] || fail "after reload: $unit_state for 15 s"
[ "$(show MainPID)" = "$pid1" ] || fail "reload replaced the process"
[ "$(epoch cars)" = "$epoch_before" ] || fail "the reload changed the epoch"

# --- watchdog ------------------------------------------------------------------------------
step "watchdog: a loop stuck in a plugin"
# A drop-in as an operator would write it: a short watchdog, the fault fixture loaded into
# rowcastd itself (a plugin host would be killed by plugin_timeout_ms and the loop go on), and
# no core dump of the SIGABRT (the host's core_pattern may write one into the state directory).
in_ct mkdir -p /etc/systemd/system/rowcastd.service.d
cat > "$work/files/watchdog-test.conf" <<'EOF'
[Service]
WatchdogSec=3s
LimitCORE=0
ExecStart=
ExecStart=/usr/local/bin/rowcastd --config /etc/rowcast/rowcastd.yaml --plugin-isolation in_process --plugins /usr/local/lib/rowcast/plugins --plugins /srv/rowcast-test-plugins
EOF
in_ct cp /srv/rowcast-test/watchdog-test.conf /etc/systemd/system/rowcastd.service.d/
in_ct systemctl daemon-reload
# A restart is a clean stop (SIGTERM, drain, exit 0): the epoch stays.
in_ct systemctl restart rowcastd || fail "restart with the drop-in failed"
[ "$(show WatchdogUSec)" = 3s ] || fail "the drop-in's WatchdogSec is not in force: $(show WatchdogUSec)"
[ "$(epoch cars)" = "$epoch_before" ] || fail "a clean restart changed the epoch"
plugins=$(rowcast plugins); grep -q fault <<<"$plugins" || fail "the fault fixture is not loaded"
pid2=$(show MainPID)
restarts=$(show NRestarts)
# The healthy loop pings: systemd's record of the last WATCHDOG=1 moves (bounded: 30 s).
ping=$(show WatchdogTimestampMonotonic)
deadline=$((SECONDS + 30))
while (( SECONDS < deadline )) && [ "$(show WatchdogTimestampMonotonic)" = "$ping" ]; do sleep 0.5; done
[ "$(show WatchdogTimestampMonotonic)" != "$ping" ] || fail "no WATCHDOG=1 from rowcastd within 30 s"
[ "$(show NRestarts)" = "$restarts" ] || fail "rowcastd restarted before its loop was stuck"

# The "hang" item spins forever in the loop thread; pushed without an ack (nothing answers).
printf '%s\n' '{"id":"hang","type":"fault"}' > "$work/files/hang.json"
rowcast publish --feed stuck --file /srv/rowcast-test/hang.json --no-ack || fail "could not push the hang item"
# No check that status stops answering here: within WatchdogSec + RestartSec a new rowcastd
# answers again. The journal below shows what happened.
echo "the hang item is sent; waiting for the watchdog (bounded: 60 s)"
deadline=$((SECONDS + 60))
while (( SECONDS < deadline )); do
    [ "$(show NRestarts)" -gt "$restarts" ] && [ "$(show ActiveState)/$(show SubState)" = active/running ] && break
    sleep 0.5
done
[ "$(show NRestarts)" -gt "$restarts" ] || fail "systemd did not restart rowcastd within 60 s"
logged "Watchdog timeout" || fail "no watchdog timeout in the journal"
logged "Killing process $pid2 \(rowcastd\) with signal SIGABRT" || fail "the watchdog did not send SIGABRT to rowcastd"
logged "Main process exited, code=(dumped|killed), status=6/ABRT" || fail "rowcastd did not die of SIGABRT"
logged "Failed with result 'watchdog'" || fail "systemd does not blame the watchdog"
[ "$(show ActiveState)/$(show SubState)" = active/running ] || fail "not running again: $(show ActiveState)/$(show SubState)"
pid3=$(show MainPID)
[ "$pid3" != "$pid2" ] || fail "the same process is still running"
echo "killed by the watchdog, restarted: pid $pid2 -> $pid3, NRestarts $(show NRestarts)"

# --- restart keeps the epoch ---------------------------------------------------------------
step "after the restart"
epoch_after=$(epoch cars)
[ "$epoch_after" = "$epoch_before" ] || fail "the crash restart started a new epoch: $epoch_before -> $epoch_after"
snapshot=$(rowcast snapshot --feed cars); grep -q "Model 3" <<<"$snapshot" || fail "the restarted service lost the row"
echo "feed cars: epoch $epoch_after kept, row kept"

step "systemctl stop rowcastd"
in_ct systemctl stop rowcastd
[ "$(show ActiveState)" = inactive ] || fail "after stop: $(show ActiveState) ($(show Result))"
[ "$(show ExecMainStatus)" = 0 ] || fail "the stop exited $(show ExecMainStatus), not 0"
echo "PASS: test-systemd"
