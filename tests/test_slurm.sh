#!/usr/bin/env bash
# test_slurm.sh — the Slurm recipe of docs/sweeps.md ("Sweeping across a
# Slurm cluster") on a one-node Slurm cluster on this machine: a job array of
# `planeval run --shard $SLURM_ARRAY_TASK_ID/$SLURM_ARRAY_TASK_COUNT`, then a
# dependent `planeval merge` job, whose report must be byte-identical to one
# plain `planeval run` of the same scenario.
#
#   bash tests/test_slurm.sh PLANEVAL SOURCE_DIR WORKDIR
#
# The test starts, as root, its own munged (a generated key, its own socket,
# pid and seed files under WORKDIR), slurmctld and slurmd (a slurm.conf,
# state, spool and logs under WORKDIR, SLURM_CONF pointing at it, its own
# ports; the sockets go to a private /tmp directory when WORKDIR is too deep
# for a Unix socket path), and stops all three on exit, whatever happens. A
# munged or Slurm already running on the machine is neither used nor touched.
# Needs Debian's slurmctld, slurmd, slurm-client and munge (apt-get install
# slurm-wlm munge). Exit 0 pass, 1 fail, 77 skip (not root, or Slurm/munge
# not installed).
# shellcheck disable=SC2317 # stop_pid and cleanup run from the EXIT trap
set -u

planeval=${1:?usage: test_slurm.sh PLANEVAL SOURCE_DIR WORKDIR}
src=${2:?usage: test_slurm.sh PLANEVAL SOURCE_DIR WORKDIR}
work=${3:?usage: test_slurm.sh PLANEVAL SOURCE_DIR WORKDIR}

scenario_rel=scenarios/drills/02-choose-parallelism/02b-70b-8-nodes.yaml
shards=4
timeout_s=60 # for the array and the merge job together

if [[ ! -x $planeval ]]; then
    echo "skip: no planeval binary at $planeval"
    exit 77
fi
if ((EUID != 0)); then
    echo "skip: test_slurm.sh starts munged, slurmctld and slurmd and must run as root"
    exit 77
fi
# The daemons live in /usr/sbin, not always on a non-login PATH.
export PATH=$PATH:/usr/sbin:/sbin
missing=()
for cmd in slurmctld slurmd sbatch squeue scontrol munged munge unmunge; do
    command -v "$cmd" >/dev/null 2>&1 || missing+=("$cmd")
done
if ((${#missing[@]} > 0)); then
    echo "skip: not installed: ${missing[*]} (apt-get install slurm-wlm munge)"
    exit 77
fi

# Absolute paths: the jobs run in their own working directory.
abspath() { (cd "$(dirname "$1")" && printf '%s/%s\n' "$(pwd -P)" "$(basename "$1")"); }
planeval=$(abspath "$planeval")
src=$(cd "$src" && pwd -P) || exit 1
scenario=$src/$scenario_rel
mkdir -p "$work" || exit 1
work=$(cd "$work" && pwd -P) || exit 1
if [[ ! -f $scenario ]]; then
    echo "FAIL: no scenario $scenario"
    echo "0 passed, 1 failed"
    exit 1
fi

passed=0
failed=0
pass() { echo "ok   $1"; passed=$((passed + 1)); }
fail() { echo "FAIL $1"; failed=$((failed + 1)); }
finish() {
    echo "$passed passed, $failed failed"
    if ((failed > 0)); then exit 1; fi
    exit 0
}
# Print the tail of each named log (for a failure).
show_logs() {
    local f
    for f in "$@"; do
        [[ -s $f ]] || continue
        echo "---- last lines of $f"
        tail -n 15 "$f" | sed 's/^/    /'
    done
}

mungedir=$work/munge
slurmdir=$work/slurm
out=$work/out
single=$work/single
rm -rf "$mungedir" "$slurmdir" "$out" "$single"
mkdir -p "$slurmdir/state" "$out" "$single" || exit 1
mkdir -m 0700 "$mungedir" || exit 1

# Unix socket paths must fit in sun_path (108 bytes): munged's socket and the
# ones slurmstepd creates in SlurmdSpoolDir (HOST_JOBID.STEPID). If WORKDIR is
# too deep for them, both go into a private directory under /tmp instead.
host=$(hostname -s)
rundir=$work/run
tmp_rundir=
if ((${#rundir} + ${#host} + 32 > 107)); then
    tmp_rundir=$(mktemp -d /tmp/planeval-slurm.XXXXXX) || exit 1
    rundir=$tmp_rundir
fi
rm -rf "$work/run"
mkdir -p "$rundir/spool" || exit 1
chmod 0755 "$rundir" # munged wants its socket's directory searchable by all
socket=$rundir/munge.socket

munged_pid=
slurmctld_pid=
slurmd_pid=
jobs_submitted=()

# Stop a process we started: TERM, up to 10 s, then KILL; reap it.
stop_pid() {
    local pid=$1 i
    [[ -n $pid ]] || return 0
    kill -0 "$pid" 2>/dev/null || { wait "$pid" 2>/dev/null; return 0; }
    kill -TERM "$pid" 2>/dev/null
    for ((i = 0; i < 100; i++)); do
        kill -0 "$pid" 2>/dev/null || break
        sleep 0.1
    done
    if kill -0 "$pid" 2>/dev/null; then
        echo "note: pid $pid ignored SIGTERM; killing it"
        kill -KILL "$pid" 2>/dev/null
    fi
    wait "$pid" 2>/dev/null
    return 0
}

cleanup() {
    local i
    trap - EXIT INT TERM HUP
    if [[ -n $slurmctld_pid ]] && kill -0 "$slurmctld_pid" 2>/dev/null; then
        # Cancel our jobs and let their slurmstepd exit before the daemons go.
        if ((${#jobs_submitted[@]} > 0)); then
            scancel "${jobs_submitted[@]}" >/dev/null 2>&1
            for ((i = 0; i < 100; i++)); do
                [[ -z $(squeue -h -o %i 2>/dev/null) ]] && break
                sleep 0.1
            done
        fi
    fi
    stop_pid "$slurmd_pid"
    stop_pid "$slurmctld_pid"
    stop_pid "$munged_pid"
    [[ -n $tmp_rundir ]] && rm -rf "$tmp_rundir"
}
trap cleanup EXIT
trap 'echo "interrupted"; exit 1' INT TERM HUP

# ------------------------------------------------------------------ munge
key=$mungedir/munge.key
if command -v mungekey >/dev/null 2>&1; then
    mungekey --create --keyfile="$key" >"$mungedir/mungekey.log" 2>&1
elif command -v create-munge-key >/dev/null 2>&1; then
    create-munge-key -f >"$mungedir/mungekey.log" 2>&1 </dev/null
    cp /etc/munge/munge.key "$key"
else
    dd if=/dev/urandom of="$key" bs=1024 count=1 status=none
fi
chmod 0400 "$key" 2>/dev/null
if [[ ! -s $key ]]; then
    fail "munge key: could not create $key"
    show_logs "$mungedir/mungekey.log"
    finish
fi

# --force: munged refuses to run as root without it.
munged --foreground --force --socket="$socket" --key-file="$key" \
    --pid-file="$mungedir/munged.pid" --log-file="$mungedir/munged.log" \
    --seed-file="$mungedir/munged.seed" >"$mungedir/munged.stdout" 2>&1 </dev/null &
munged_pid=$!
munge_ok=0
for ((i = 0; i < 100; i++)); do
    if [[ -S $socket ]] && munge -n -S "$socket" 2>/dev/null | unmunge -S "$socket" >/dev/null 2>&1; then
        munge_ok=1
        break
    fi
    kill -0 "$munged_pid" 2>/dev/null || break
    sleep 0.1
done
if ((munge_ok)); then
    pass "munged up on its own socket $socket"
else
    fail "munged did not come up on $socket"
    show_logs "$mungedir/mungekey.log" "$mungedir/munged.stdout"
    finish
fi

# ------------------------------------------------------------------ slurm
cpus=$(nproc 2>/dev/null || echo 1)
((cpus >= 2)) && cpus=2

# Two free TCP ports next to each other, away from Slurm's 6817/6818.
port_free() { ! (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }
ctlport=
for ((p = 20000 + ($$ % 10000) * 2, n = 0; n < 50; p += 2, n++)); do
    if port_free "$p" && port_free "$((p + 1))"; then
        ctlport=$p
        break
    fi
done
if [[ -z $ctlport ]]; then
    fail "no two free TCP ports found for slurmctld and slurmd"
    finish
fi
dport=$((ctlport + 1))

conf=$slurmdir/slurm.conf
cat >"$conf" <<EOF
# Written by tests/test_slurm.sh: a one-node cluster on this machine.
ClusterName=planeval-test
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$ctlport
SlurmdPort=$dport
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$socket
StateSaveLocation=$slurmdir/state
SlurmdSpoolDir=$rundir/spool
SlurmctldPidFile=$slurmdir/slurmctld.pid
SlurmdPidFile=$slurmdir/slurmd.pid
SlurmctldLogFile=$slurmdir/slurmctld.log
SlurmdLogFile=$slurmdir/slurmd.log
SlurmctldDebug=info
SlurmdDebug=info
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
MpiDefault=none
ReturnToService=2
SlurmdParameters=config_overrides
MailProg=/bin/true
NodeName=$host NodeAddr=127.0.0.1 CPUs=$cpus RealMemory=1000 State=UNKNOWN
PartitionName=debug Nodes=ALL Default=YES MaxTime=INFINITE State=UP
EOF
export SLURM_CONF=$conf
# Do not inherit a surrounding job's identity (when CI itself runs under Slurm).
while IFS='=' read -r var _; do
    [[ $var == SLURM_* && $var != SLURM_CONF ]] && unset "$var"
done < <(env)

slurmctld -D -f "$conf" >"$slurmdir/slurmctld.stdout" 2>&1 </dev/null &
slurmctld_pid=$!
slurmd -D -f "$conf" -N "$host" >"$slurmdir/slurmd.stdout" 2>&1 </dev/null &
slurmd_pid=$!

state=
for ((i = 0; i < 300; i++)); do
    state=$(sinfo -h -n "$host" -o %T 2>/dev/null)
    [[ $state == idle ]] && break
    if ! kill -0 "$slurmctld_pid" 2>/dev/null || ! kill -0 "$slurmd_pid" 2>/dev/null; then
        break
    fi
    sleep 0.1
done
if [[ $state == idle ]]; then
    pass "slurmctld and slurmd up, node $host idle ($cpus CPUs, ports $ctlport/$dport)"
else
    fail "node $host not idle after 30 s (state '${state}')"
    show_logs "$slurmdir/slurmctld.log" "$slurmdir/slurmctld.stdout" \
        "$slurmdir/slurmd.log" "$slurmdir/slurmd.stdout"
    finish
fi

# ------------------------------------------------------ the docs/sweeps.md recipe
if ! "$planeval" run "$scenario" --quiet -o "$single" </dev/null; then
    fail "planeval run $scenario_rel -o $single failed"
    finish
fi
# The report is named after the scenario's name:, not its file.
shopt -s nullglob
reports=("$single"/*.csv)
shopt -u nullglob
report=
for f in "${reports[@]}"; do
    [[ $f == *.summary.csv ]] && continue
    report=$f
done
if [[ -z $report ]]; then
    fail "planeval run wrote no report into $single"
    finish
fi
name=$(basename "$report" .csv)

# shellcheck disable=SC2016 # $SLURM_* expand in the job, not here
printf -v run_cmd '%q run %q --quiet --shard $SLURM_ARRAY_TASK_ID/$SLURM_ARRAY_TASK_COUNT -o %q' \
    "$planeval" "$scenario" "$out"
printf -v merge_cmd '%q merge %q.shard-*-of-%d.csv -o %q' \
    "$planeval" "$out/$name" "$shards" "$out/merged.csv"

start_ns=$(date +%s%N)
array_id=$(sbatch --parsable --array=0-$((shards - 1)) --job-name=planeval-sweep \
    --chdir="$out" --output="$slurmdir/sweep-%A_%a.out" --wrap "$run_cmd" 2>"$slurmdir/sbatch.err")
array_id=${array_id%%;*}
if [[ ! $array_id =~ ^[0-9]+$ ]]; then
    fail "sbatch --array=0-$((shards - 1)) did not give a job id"
    show_logs "$slurmdir/sbatch.err" "$slurmdir/slurmctld.log"
    finish
fi
jobs_submitted+=("$array_id")
merge_id=$(sbatch --parsable --dependency=afterok:"$array_id" --job-name=planeval-merge \
    --chdir="$out" --output="$slurmdir/merge-%j.out" --wrap "$merge_cmd" 2>>"$slurmdir/sbatch.err")
merge_id=${merge_id%%;*}
if [[ ! $merge_id =~ ^[0-9]+$ ]]; then
    fail "sbatch --dependency=afterok:$array_id did not give a job id"
    show_logs "$slurmdir/sbatch.err" "$slurmdir/slurmctld.log"
    finish
fi
jobs_submitted+=("$merge_id")
pass "submitted array job $array_id (0-$((shards - 1))) and merge job $merge_id (afterok:$array_id)"

# Job states, one per line, from scontrol (no accounting database here);
# finished jobs stay visible for MinJobAge (300 s).
job_states() {
    scontrol -o show job "$1" 2>/dev/null | grep -o 'JobState=[A-Z_]*' | cut -d= -f2
}
array_done_ms=
merge_done_ms=
mstate=
deadline=$((SECONDS + timeout_s))
while ((SECONDS < deadline)); do
    if [[ -z $array_done_ms ]]; then
        states=$(job_states "$array_id")
        if [[ -n $states ]] && ! grep -qvE '^(COMPLETED|FAILED|CANCELLED|TIMEOUT|NODE_FAIL|OUT_OF_MEMORY|BOOT_FAIL|DEADLINE|PREEMPTED)$' <<<"$states"; then
            array_done_ms=$((($(date +%s%N) - start_ns) / 1000000))
            # A failed task: afterok can never be satisfied, the merge job
            # would wait forever.
            grep -qv '^COMPLETED$' <<<"$states" && break
        fi
    fi
    mstate=$(job_states "$merge_id")
    case $mstate in
    COMPLETED | FAILED | CANCELLED | TIMEOUT | NODE_FAIL | OUT_OF_MEMORY | BOOT_FAIL | DEADLINE | PREEMPTED)
        merge_done_ms=$((($(date +%s%N) - start_ns) / 1000000))
        break
        ;;
    esac
    sleep 0.2
done
if ((SECONDS >= deadline)); then
    echo "note: stopped waiting for the jobs after ${timeout_s} s"
fi
fmt_s() { printf '%d.%03d s' $(($1 / 1000)) $(($1 % 1000)); }

states=$(job_states "$array_id")
ncompleted=$(grep -c '^COMPLETED$' <<<"$states")
if [[ -n $array_done_ms ]] && ((ncompleted == shards)); then
    pass "array job: $shards tasks COMPLETED in $(fmt_s "$array_done_ms")"
else
    fail "array job $array_id: $ncompleted of $shards tasks COMPLETED (states: $(tr '\n' ' ' <<<"$states"))"
    show_logs "$slurmdir"/sweep-*.out "$slurmdir/slurmctld.log" "$slurmdir/slurmd.log"
fi

missing_shards=()
for ((i = 0; i < shards; i++)); do
    f=$out/$name.shard-$i-of-$shards.csv
    [[ -s $f ]] || missing_shards+=("$(basename "$f")")
done
if ((${#missing_shards[@]} == 0)); then
    pass "the array wrote $name.shard-{0..$((shards - 1))}-of-$shards.csv"
else
    fail "missing shard reports: ${missing_shards[*]}"
fi

if [[ $mstate == COMPLETED && -s $out/merged.csv ]]; then
    pass "merge job COMPLETED after the array, $(fmt_s "$merge_done_ms") after submission"
else
    fail "merge job $merge_id did not complete: state '${mstate}', merged.csv $([[ -s $out/merged.csv ]] && echo written || echo missing)"
    show_logs "$slurmdir"/merge-*.out "$slurmdir/slurmctld.log"
fi

if [[ -s $out/merged.csv ]] && cmp -s "$out/merged.csv" "$report"; then
    pass "merged.csv is byte-identical to one run's $(basename "$report") ($(wc -l <"$report") lines)"
elif [[ ! -s $out/merged.csv ]]; then
    fail "no merged.csv to compare with one run's $(basename "$report")"
else
    fail "merged.csv differs from one run's $(basename "$report")"
    cmp "$out/merged.csv" "$report" | head -n 3
fi

finish
