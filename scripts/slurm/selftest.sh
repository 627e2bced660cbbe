#!/bin/bash
# Tests arena's Slurm job arrays on a real Slurm: a single-node cluster on this machine.
#
#   scripts/slurm/selftest.sh [ARENA_BINARY]        (default: target/release/arena, else
#                                                    target/debug/arena)
#
# Needs Debian (or Ubuntu) and root (or passwordless sudo). It installs slurm-wlm and
# munge if they are missing, writes a single-node slurm.conf from Debian's
# slurm.conf.simple into a fresh temporary folder, starts munged (unless one is running),
# slurmctld and slurmd by hand (no systemd, no cgroups), submits a 4-task array of
# tests/data/tournaments/small.toml plus the merge as a dependent job, and checks that the
# merged results equal a single-process run of the same config: the same game records
# (without measured times) and the same summary.json (without measured speeds). Then a
# tune of tests/data/tune/small.toml by a 4-task array of workers (tune.sbatch), one of
# them killed twice (SIGKILL) along the way, and its verification job (tune-verify.sbatch):
# the same state, trajectory and tuned table as one process. The
# daemons it started are stopped by pid on every exit; on failure the daemon and job logs
# are printed. /etc/slurm is not touched (everything reads SLURM_CONF).
#
# Environment: ARENA_SLURM_TIMEOUT (seconds to wait for the jobs, default 300),
# ARENA_SLURM_KEEP=1 keeps the work folder after success, ARENA_SLURM_TUNE_PAIRS the
# tune's pairs (default 1600).
set -euo pipefail

root=$(cd "$(dirname "$0")/../.." && pwd)
bin=${1:-}
if [ -z "$bin" ]; then
    for candidate in "$root/target/release/arena" "$root/target/debug/arena"; do
        if [ -x "$candidate" ]; then bin=$candidate; break; fi
    done
fi
if [ -z "$bin" ] || [ ! -x "$bin" ]; then
    echo "selftest: no arena binary (build it: cargo build --release), or pass its path" >&2
    exit 2
fi
bin=$(cd "$(dirname "$bin")" && pwd)/$(basename "$bin")
config=$root/tests/data/tournaments/small.toml
shards=4
timeout=${ARENA_SLURM_TIMEOUT:-300}

if [ "$(id -u)" -ne 0 ]; then
    if sudo -n true 2>/dev/null; then
        exec sudo -n --preserve-env=ARENA_SLURM_TIMEOUT,ARENA_SLURM_KEEP,ARENA_SLURM_TUNE_PAIRS "$0" "$bin"
    fi
    echo "selftest: needs root (it installs packages and starts the Slurm daemons)" >&2
    exit 2
fi

say() { echo "selftest: $*"; }
started=$(date +%s)

# --- packages --------------------------------------------------------------------------
if ! command -v slurmctld >/dev/null || ! command -v slurmd >/dev/null \
    || ! command -v sbatch >/dev/null || ! command -v munged >/dev/null; then
    say "installing slurm-wlm and munge"
    export DEBIAN_FRONTEND=noninteractive
    apt-get -o DPkg::Lock::Timeout=300 update -q
    apt-get -o DPkg::Lock::Timeout=300 install -y -q --no-install-recommends slurm-wlm munge
fi
example=/usr/share/doc/slurmctld/examples/slurm.conf.simple.gz
[ -f "$example" ] || { echo "selftest: $example is missing (package slurmctld)" >&2; exit 1; }

# --- the cluster's files ---------------------------------------------------------------
work=$(mktemp -d /tmp/arena-slurm.XXXXXX)
chmod 755 "$work"
mkdir -p "$work/state" "$work/spool" "$work/log" "$work/jobs"
export SLURM_CONF=$work/slurm.conf
host=$(hostname -s)
cpus=$(nproc)
memory=$(free -m | awk '/^Mem:/ {print $2}')
memory=$((memory * 95 / 100)) # below what slurmd measures, or it drains the node

pids=()
munged_pid=
jobs_submitted=()
cleanup() {
    local status=$?
    trap - EXIT INT TERM
    if [ "$status" -ne 0 ]; then
        echo "selftest: FAILED (exit $status); logs follow" >&2
        for f in "$work"/log/*.log "$work"/jobs/*.out; do
            [ -s "$f" ] || continue
            # A daemon's stdout repeats its log file; it matters only if the log is empty.
            case $f in *.stdout.log) [ -s "${f%.stdout.log}.log" ] && continue ;; esac
            echo "----- $f (last 60 lines)" >&2
            tail -n 60 "$f" >&2
        done
        if [ "${#jobs_submitted[@]}" -gt 0 ]; then
            scancel "${jobs_submitted[@]}" 2>/dev/null || true
            sleep 1
        fi
    fi
    for pid in "${pids[@]}"; do
        kill "$pid" 2>/dev/null || true
    done
    for pid in "${pids[@]}"; do
        for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
        kill -9 "$pid" 2>/dev/null || true
    done
    if [ -n "$munged_pid" ]; then
        kill "$munged_pid" 2>/dev/null || true
    fi
    if [ "$status" -eq 0 ] && [ -z "${ARENA_SLURM_KEEP:-}" ]; then
        rm -rf "$work"
    else
        echo "selftest: work folder kept: $work" >&2
    fi
    exit "$status"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# Debian's example, made single-node and systemd-free: everything in $work, root runs the
# daemons (no slurm user needed), process tracking without cgroups.
set_key() { # set_key KEY VALUE: replace the line, or add it
    if grep -q "^$1=" "$SLURM_CONF"; then
        sed -i "s|^$1=.*|$1=$2|" "$SLURM_CONF"
    else
        echo "$1=$2" >>"$SLURM_CONF"
    fi
}
zcat "$example" | grep -v -E '^(NodeName|PartitionName)=' >"$SLURM_CONF"
set_key ClusterName arena-selftest
set_key SlurmctldHost "$host(127.0.0.1)"
set_key SlurmUser root
set_key SlurmdUser root
set_key SlurmctldPidFile "$work/slurmctld.pid"
set_key SlurmdPidFile "$work/slurmd.pid"
set_key StateSaveLocation "$work/state"
set_key SlurmdSpoolDir "$work/spool"
set_key SlurmctldLogFile "$work/log/slurmctld.log"
set_key SlurmdLogFile "$work/log/slurmd.log"
set_key ProctrackType proctrack/linuxproc
set_key TaskPlugin task/none
set_key JobAcctGatherType jobacct_gather/none
set_key AccountingStorageType accounting_storage/none
set_key JobCompType jobcomp/none
set_key ReturnToService 2
set_key DefMemPerCPU 512
set_key MinJobAge 600
set_key MpiDefault none
set_key MailProg /bin/true
cat >>"$SLURM_CONF" <<EOF
NodeName=$host NodeAddr=127.0.0.1 CPUs=$cpus RealMemory=$memory State=UNKNOWN
PartitionName=selftest Nodes=$host Default=YES MaxTime=INFINITE State=UP OverSubscribe=FORCE:4
EOF

# --- munge -----------------------------------------------------------------------------
if ! munge -n </dev/null 2>/dev/null | unmunge >/dev/null 2>&1; then
    if [ ! -s /etc/munge/munge.key ]; then
        say "creating the munge key"
        if command -v mungekey >/dev/null; then
            mungekey --create --keyfile=/etc/munge/munge.key
        else
            dd if=/dev/urandom of=/etc/munge/munge.key bs=1 count=1024 status=none
        fi
    fi
    chown munge:munge /etc/munge/munge.key
    chmod 400 /etc/munge/munge.key
    mkdir -p /run/munge /var/log/munge /var/lib/munge
    chown munge:munge /run/munge /var/log/munge /var/lib/munge
    say "starting munged"
    runuser -u munge -- /usr/sbin/munged
    for _ in $(seq 50); do [ -s /run/munge/munged.pid ] && break; sleep 0.1; done
    munged_pid=$(cat /run/munge/munged.pid 2>/dev/null || true)
    if ! munge -n </dev/null | unmunge >/dev/null; then
        echo "selftest: munged does not answer" >&2
        cat /var/log/munge/munged.log >&2 || true
        exit 1
    fi
else
    say "munged is already running: using it"
fi

# --- slurmctld and slurmd, in the foreground of background jobs (their pids are ours) ---
say "starting slurmctld and slurmd ($host: $cpus CPUs, ${memory} MB)"
slurmctld -D -i -f "$SLURM_CONF" >"$work/log/slurmctld.stdout.log" 2>&1 &
pids+=($!)
slurmd -D -f "$SLURM_CONF" >"$work/log/slurmd.stdout.log" 2>&1 &
pids+=($!)

state=
for _ in $(seq 120); do
    state=$(sinfo -h -n "$host" -o %T 2>/dev/null || true)
    [ "$state" = idle ] && break
    for pid in "${pids[@]}"; do
        kill -0 "$pid" 2>/dev/null || { echo "selftest: a Slurm daemon (pid $pid) died" >&2; exit 1; }
    done
    sleep 0.5
done
if [ "$state" != idle ]; then
    echo "selftest: Slurm did not come up: node $host is '${state:-unknown}' after 60 s" >&2
    sinfo -R >&2 || true
    exit 1
fi
say "Slurm is up: $(sinfo -h -o '%P %D %T %c CPUs')"

# --- the run: a 4-task array, then the merge -------------------------------------------
out=$work/results/small
export ARENA=$bin
array=$(sbatch --parsable --array=0-$((shards - 1)) --cpus-per-task=1 --mem-per-cpu=512M \
    --chdir="$work" --output="$work/jobs/arena-%A_%a.out" \
    "$root/scripts/slurm/tournament.sbatch" "$config" "$out")
array=${array%%;*}
jobs_submitted+=("$array")
merge=$(sbatch --parsable --dependency=afterok:"$array" --kill-on-invalid-dep=yes \
    --mem=512M --chdir="$work" --output="$work/jobs/arena-merge-%j.out" \
    "$root/scripts/slurm/merge.sbatch" "$out")
merge=${merge%%;*}
jobs_submitted+=("$merge")
say "submitted array job $array ($shards tasks) and merge job $merge (afterok:$array)"

# Meanwhile, the reference: the same config in one process.
"$bin" run "$config" --quiet --out "$work/single" >"$work/log/single.log"

job_state() { scontrol show job "$1" 2>/dev/null | sed -n 's/.*JobState=\([A-Z_]*\).*/\1/p' | head -n 1; }
deadline=$(($(date +%s) + timeout))
merge_state=
while :; do
    merge_state=$(job_state "$merge")
    case "$merge_state" in
        COMPLETED) break ;;
        FAILED | CANCELLED | TIMEOUT | NODE_FAIL | OUT_OF_MEMORY | PREEMPTED | BOOT_FAIL | DEADLINE)
            echo "selftest: the merge job ended $merge_state" >&2
            scontrol show job "$array" >&2 || true
            exit 1
            ;;
    esac
    if [ "$(date +%s)" -ge "$deadline" ]; then
        echo "selftest: the jobs did not finish in ${timeout} s (merge job: ${merge_state:-?})" >&2
        squeue >&2 || true
        exit 1
    fi
    sleep 1
done
for task in $(seq 0 $((shards - 1))); do
    s=$(job_state "${array}_$task")
    [ "$s" = COMPLETED ] || { echo "selftest: array task $task: ${s:-unknown}" >&2; exit 1; }
done
say "all $shards array tasks and the merge completed"

# --- the checks ------------------------------------------------------------------------
for i in $(seq 0 $((shards - 1))); do
    f=$out/shards/shard-$i-of-$shards.jsonl
    [ -f "$f" ] || { echo "selftest: $f is missing" >&2; exit 1; }
    [ ! -e "$f.part" ] || { echo "selftest: $f.part is left over" >&2; exit 1; }
    grep -q "SLURM_ARRAY_TASK_ID=$i" "$work"/jobs/arena-"${array}_$i".out \
        || { echo "selftest: task $i did not report its shard from the environment" >&2; exit 1; }
done
grep -q "merged $shards shards" "$work"/jobs/arena-merge-"$merge".out \
    || { echo "selftest: the merge job did not report the merge" >&2; exit 1; }
cmp -s "$out/run.toml" "$work/single/run.toml" \
    || { echo "selftest: run.toml differs between the shards and the single run" >&2; exit 1; }

# Records without the measured fields (move times "time_us", formerly "t"; game "duration_ms";
# when it was played, "played_at"), by game.
strip_times() { sed -E 's/"(t|time_us)":[0-9]+/"\1":0/g; s/"duration_ms":[0-9]+/"duration_ms":0/; s/"played_at":"[^"]*"/"played_at":""/' "$1" | LC_ALL=C sort; }
games=$(wc -l <"$work/single/games.jsonl")
if ! diff <(strip_times "$work/single/games.jsonl") <(strip_times "$out/games.jsonl") >"$work/log/games.diff"; then
    echo "selftest: the merged games differ from the single run's:" >&2
    head -c 2000 "$work/log/games.diff" >&2
    exit 1
fi
# Statistics without the measured speeds (nodes per second).
strip_speeds() { grep -v '"nps":' "$1"; }
if ! diff <(strip_speeds "$work/single/summary.json") <(strip_speeds "$out/summary.json") >"$work/log/summary.diff"; then
    echo "selftest: the merged statistics differ from the single run's:" >&2
    head -c 2000 "$work/log/summary.diff" >&2
    exit 1
fi
say "PASS: $shards Slurm array tasks merged = one process ($games games, same records and statistics) in $(($(date +%s) - started)) s"

# --- a tune: 4 workers (scripts/slurm/tune.sbatch), one of them killed twice -------------
# Worker 2 is killed (SIGKILL) once it has played some pairs, resubmitted (worker 2
# again), killed again and left dead: the others play its pairs. The tune must end with
# exactly the state and trajectory of one process, and the verification job must run.
tune_started=$(date +%s)
tune_config=$root/tests/data/tune/small.toml
tune_args=(--pairs "${ARENA_SLURM_TUNE_PAIRS:-1600}")
tout=$work/results/tune
workers=4
tarray=$(sbatch --parsable --array=0-$((workers - 1)) --cpus-per-task=1 --mem-per-cpu=512M \
    --chdir="$work" --output="$work/jobs/arena-tune-%A_%a.out" \
    "$root/scripts/slurm/tune.sbatch" "$tune_config" "$tout" "${tune_args[@]}")
tarray=${tarray%%;*}
jobs_submitted+=("$tarray")
say "tune: submitted array job $tarray ($workers workers)"
# Meanwhile, the reference: the same tune in one process.
"$bin" tune "$tune_config" --out "$work/tune-single" --quiet --verify-pairs 0 \
    "${tune_args[@]}" >"$work/log/tune-single.log" 2>&1 &
single_pid=$!
pids+=("$single_pid")

journal=$tout/pairs/2.jsonl
played() { [ -f "$journal" ] && wc -l <"$journal" || echo 0; }
wait_played() { # wait_played N: until worker 2's journal holds N lines
    local until=$(($(date +%s) + timeout))
    while [ "$(played)" -lt "$1" ]; do
        if [ "$(date +%s)" -ge "$until" ]; then
            echo "selftest: worker 2 never played $1 pairs ($(played))" >&2
            exit 1
        fi
        sleep 0.2
    done
}
kill_task() { # kill_task JOB_TASK: SIGKILL to its arena, then wait until it has ended
    scancel --full --signal=KILL "$1"
    local until=$(($(date +%s) + 60))
    while [ "$(job_state "$1")" = RUNNING ]; do
        [ "$(date +%s)" -lt "$until" ] || { echo "selftest: $1 did not die" >&2; exit 1; }
        sleep 0.2
    done
}
wait_played 30
kill_task "${tarray}_2"
say "tune: killed worker 2 after $(played) pairs; submitting it again"
again=$(sbatch --parsable --array=2 --cpus-per-task=1 --mem-per-cpu=512M --chdir="$work" \
    --output="$work/jobs/arena-tune-%A_%a.out" \
    "$root/scripts/slurm/tune.sbatch" "$tune_config" "$tout" "${tune_args[@]}")
again=${again%%;*}
jobs_submitted+=("$again")
wait_played $(($(played) + 30))
kill_task "${again}_2"
say "tune: killed worker 2 again after $(played) pairs; it does not come back"

verify=$(sbatch --parsable --dependency=afterany:"$tarray":"$again" --cpus-per-task=1 \
    --mem-per-cpu=512M --chdir="$work" --output="$work/jobs/arena-tune-verify-%j.out" \
    "$root/scripts/slurm/tune-verify.sbatch" "$tune_config" "$tout" "${tune_args[@]}" \
    --verify-pairs 4)
verify=${verify%%;*}
jobs_submitted+=("$verify")
deadline=$(($(date +%s) + timeout))
while :; do
    s=$(job_state "$verify")
    case "$s" in
        COMPLETED) break ;;
        FAILED | CANCELLED | TIMEOUT | NODE_FAIL | OUT_OF_MEMORY | PREEMPTED | BOOT_FAIL | DEADLINE)
            echo "selftest: the verification job ended $s" >&2
            exit 1
            ;;
    esac
    if [ "$(date +%s)" -ge "$deadline" ]; then
        echo "selftest: the tune did not finish in ${timeout} s (verification job: ${s:-?})" >&2
        squeue >&2 || true
        exit 1
    fi
    sleep 1
done
wait "$single_pid" || { echo "selftest: the one-process tune failed" >&2; exit 1; }
for task in 0 1 3; do
    s=$(job_state "${tarray}_$task")
    [ "$s" = COMPLETED ] || { echo "selftest: tune worker $task: ${s:-unknown}" >&2; exit 1; }
    f=$work/jobs/arena-tune-${tarray}_$task.out
    grep -q "playing as worker $task .*(from SLURM_ARRAY_TASK_ID)" "$f" \
        || { echo "selftest: worker $task did not report its id from the environment" >&2; exit 1; }
    grep -q "the tune is complete" "$f" \
        || { echo "selftest: worker $task did not report the end of the tune" >&2; exit 1; }
done
grep -q "^verification: " "$work"/jobs/arena-tune-verify-"$verify".out \
    || { echo "selftest: the verification job printed no verification" >&2; exit 1; }
state_of() { python3 -c 'import json,sys; print(json.dumps(json.load(open(sys.argv[1]))["state"], sort_keys=True))' "$1"; }
if [ "$(state_of "$tout/state.json")" != "$(state_of "$work/tune-single/state.json")" ]; then
    echo "selftest: the workers' tune ended in another state than one process's:" >&2
    state_of "$tout/state.json" >&2
    state_of "$work/tune-single/state.json" >&2
    exit 1
fi
cmp -s "$tout/trajectory.csv" "$work/tune-single/trajectory.csv" \
    || { echo "selftest: the trajectories differ" >&2; exit 1; }
cmp -s "$tout/tuned.toml" "$work/tune-single/tuned.toml" \
    || { echo "selftest: the tuned tables differ" >&2; exit 1; }
pairs=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["state"]["pairs_done"])' "$tout/state.json")
say "PASS: a tune of $workers Slurm workers, worker 2 killed twice = one process ($pairs pairs, same θ, trajectory and table) in $(($(date +%s) - tune_started)) s"
