#!/usr/bin/env bash
# A real single-node Slurm cluster on localhost, for the tests of tests/class/grade_class.py
# --slurm: Debian's slurmctld, slurmd and munged, with every file they use under DIR
# (configuration, munge key and socket, state, spool, pid and log files); nothing in /etc, no
# systemd. The node is this host, with all its CPUs and 2 "gpu" gres whose device files are
# links to /dev/null (there is no GPU: Slurm counts them, so --gres=gpu:1 runs at most 2 tasks at
# once, and sets CUDA_VISIBLE_DEVICES to 0 or 1). The ports are free ones chosen at start, so
# two clusters, or a system Slurm, never clash. Finished jobs stay visible to `scontrol show job`
# for an hour (MinJobAge); there is no accounting (sacct: "accounting storage is disabled").
#
# Usage: tests/slurm/cluster.sh start DIR
#          installs slurm-wlm and munge if they are missing (apt-get, as root or with sudo -n),
#          starts the cluster (a fresh one: anything left in DIR is stopped and wiped) and
#          waits until its node is idle; then `source DIR/env.sh` (it exports SLURM_CONF) and
#          use plain sbatch, squeue, scontrol, scancel, sinfo.
#          Exits 77 (CTest's skip) with one line saying what is missing where the packages
#          are not there and cannot be installed; 1 if the cluster does not start.
#        tests/slurm/cluster.sh stop DIR
#          cancels the cluster's jobs and stops its daemons (by their pid files: TERM, then
#          KILL); does nothing for what is already stopped, never fails.
set -euo pipefail
export PATH="$PATH:/usr/sbin:/sbin"
say() { echo "cluster.sh: $*"; }
die() { echo "cluster.sh: $*" >&2; exit 1; }
usage() { awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0" >&2; exit 2; }

[ $# -eq 2 ] || usage
action=$1
case $action in start | stop) ;; *) usage ;; esac
mkdir -p "$2"
dir=$(cd "$2" && pwd)
case $dir in *[[:space:]]* | *[\#=]*) die "DIR '$dir': slurm.conf cannot name paths with spaces, # or =" ;; esac
conf=$dir/slurm.conf
now() { date +%s.%N; }
since() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }'; }

# ------------------------------------------------------------------------------- stop
alive() { # PID: not ended (a zombie has: a daemon's parent, init, may take its time to reap it)
    local stat
    stat=$(cat "/proc/$1/stat" 2> /dev/null) || return 1
    stat=${stat##*) }
    [ "${stat%% *}" != Z ]
}
running() { # PIDFILE NAME: the pid, if that daemon is alive (a recycled pid is not ours)
    local pid
    [ -s "$1" ] || return 1
    pid=$(tr -dc 0-9 < "$1")
    [ -n "$pid" ] && alive "$pid" || return 1
    [ "$(cat "/proc/$pid/comm" 2> /dev/null)" = "$2" ] || return 1
    echo "$pid"
}
end_pids() { # TENTHS PID...: TERM, up to TENTHS x 0.1 s for all, then KILL
    local grace=$1 pid i left
    shift
    kill -TERM "$@" 2> /dev/null || true
    for i in $(seq $((grace + 20))); do
        left=()
        for pid in "$@"; do ! alive "$pid" || left+=("$pid"); done
        [ ${#left[@]} -gt 0 ] || return 0
        [ "$i" -ne "$grace" ] || kill -KILL "${left[@]}" 2> /dev/null || true
        sleep 0.1
    done
}
stop_cluster() {
    local pid pids jobs p i ours env
    if [ -f "$conf" ] && running "$dir/slurmctld.pid" slurmctld > /dev/null &&
        running "$dir/slurmd.pid" slurmd > /dev/null; then
        # Running jobs first, so that no slurmstepd outlives its slurmd.
        mapfile -t jobs < <(SLURM_CONF=$conf timeout 10 squeue -h -o %F 2> /dev/null | sort -u || true)
        if [ ${#jobs[@]} -gt 0 ]; then
            SLURM_CONF=$conf timeout 10 scancel "${jobs[@]}" 2> /dev/null || true
            for i in $(seq 50); do
                [ -z "$(SLURM_CONF=$conf timeout 5 squeue -h -t running,completing -o %i 2> /dev/null || true)" ] && break
                sleep 0.2
            done
        fi
    fi
    pids=()
    if pid=$(running "$dir/slurmd.pid" slurmd); then pids+=("$pid"); fi
    if pid=$(running "$dir/slurmctld.pid" slurmctld); then pids+=("$pid"); fi
    if pid=$(running "$dir/munge/munged.pid" munged); then pids+=("$pid"); fi
    [ ${#pids[@]} -eq 0 ] || end_pids 100 "${pids[@]}" # each takes 1-2 s to end
    # Left over where slurmd was killed: step daemons (slurmd's environment names this conf)
    # and the jobs' processes (theirs too, with a SLURM_JOB_ID); never this script's callers.
    pids=()
    ours=" $$ "
    p=$$
    while [ "$p" -gt 1 ] && p=$(awk '{ print $4 }' "/proc/$p/stat" 2> /dev/null); do ours="$ours$p "; done
    for p in /proc/[0-9]*; do
        case $ours in *" ${p#/proc/} "*) continue ;; esac
        env=$(tr '\0' '\n' 2> /dev/null < "$p/environ" || true)
        grep -qxF "SLURM_CONF=$conf" <<< "$env" || continue
        case $(tr '\0' ' ' 2> /dev/null < "$p/cmdline" || true) in
        slurmstepd*) pids+=("${p#/proc/}") ;;
        *) ! grep -q '^SLURM_JOB_ID=' <<< "$env" || pids+=("${p#/proc/}") ;;
        esac
    done
    [ ${#pids[@]} -eq 0 ] || end_pids 10 "${pids[@]}" # slurmstepd ignores TERM
    rm -f "$dir/slurmd.pid" "$dir/slurmctld.pid" "$dir/munge/munged.pid"
}
if [ "$action" = stop ]; then
    stop_cluster || true
    exit 0
fi

# ------------------------------------------------------------------------------- install
commands="slurmctld slurmd sbatch munged"
missing() { local c m=""; for c in $commands; do command -v "$c" > /dev/null || m="$m $c"; done; echo "${m# }"; }
skip() { # WHY
    echo "cluster.sh: SKIPPED: no Slurm cluster: $(missing) not installed and $1; install them with: sudo apt-get install slurm-wlm munge"
    exit 77
}
if [ -n "$(missing)" ]; then
    if [ "$(id -u)" -eq 0 ]; then
        as_root=()
    elif command -v sudo > /dev/null && sudo -n true 2> /dev/null; then
        as_root=(sudo -n)
    else
        skip "this is not root and has no passwordless sudo (sudo -n)"
    fi
    command -v apt-get > /dev/null || skip "there is no apt-get here"
    say "installing slurm-wlm and munge (missing: $(missing))"
    t=$(now)
    install=("${as_root[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends slurm-wlm munge)
    if ! "${install[@]}" > "$dir/apt.log" 2>&1; then
        "${as_root[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update -q >> "$dir/apt.log" 2>&1 ||
            skip "apt-get update failed (no network?), see $dir/apt.log"
        "${install[@]}" >> "$dir/apt.log" 2>&1 ||
            skip "apt-get install failed ($(grep -m 1 '^E:' "$dir/apt.log" | cut -c 4-160 || true); all in $dir/apt.log)"
    fi
    [ -z "$(missing)" ] || skip "apt-get installed slurm-wlm and munge without them, see $dir/apt.log"
    say "installed slurm-wlm and munge in $(since "$t") s"
fi

# ------------------------------------------------------------------------------- start
t=$(now)
stop_cluster
rm -rf "$dir/munge" "$dir/state" "$dir/spool" "$dir/gpus" "$dir/slurmctld.log" "$dir/slurmd.log" "$dir/env.sh"
mkdir -p "$dir/munge" "$dir/state" "$dir/spool"
chmod 711 "$dir/munge" # munged: the socket's folder must be searchable by all
user=$(id -un)

# munge: a fresh key, its own socket, pid, log and seed files. As root munged wants --force.
head -c 1024 /dev/urandom > "$dir/munge/munge.key"
chmod 400 "$dir/munge/munge.key"
force=()
[ "$(id -u)" -ne 0 ] || force=(--force)
munged "${force[@]}" --origin=127.0.0.1 --key-file="$dir/munge/munge.key" --socket="$dir/munge/munge.socket" \
    --pid-file="$dir/munge/munged.pid" --log-file="$dir/munge/munged.log" \
    --seed-file="$dir/munge/munged.seed" ||
    die "munged did not start: $(tail -n 5 "$dir/munge/munged.log" 2> /dev/null | tr '\n' ' ')"

# Two free TCP ports (not listening here, on IPv4 or IPv6).
listening=$(awk 'NR > 1 && $4 == "0A" { n = split($2, a, ":"); print a[n] }' /proc/net/tcp /proc/net/tcp6 2> /dev/null |
    while read -r hex; do echo $((16#$hex)); done || true)
free_port() { # AVOID
    local p
    while :; do
        p=$((20000 + RANDOM % 40000))
        [ "$p" != "$1" ] && ! grep -qx "$p" <<< "$listening" && { echo "$p"; return; }
    done
}
ctld_port=$(free_port 0)
slurmd_port=$(free_port "$ctld_port")

# The node: this host, with what slurmd -C finds (a topology that differs from the hardware's
# would make slurmctld drain the node), the memory left unconfigured (not consumable).
node=$(hostname -s)
hw=$(slurmd -C 2> /dev/null | head -n 1 || true)
cpus=$(sed -n 's/.*CPUs=\([0-9]*\).*/\1/p' <<< "$hw")
topology=$(grep -o 'Boards=[0-9]* SocketsPerBoard=[0-9]* CoresPerSocket=[0-9]* ThreadsPerCore=[0-9]*' <<< "$hw" || true)
if [ -z "$cpus" ] || [ -z "$topology" ]; then
    cpus=$(nproc)
    topology=""
fi
cat > "$conf" << EOF
# Written by tests/slurm/cluster.sh: a one-node cluster on localhost, everything under $dir.
ClusterName=kit
SlurmctldHost=$node(127.0.0.1)
SlurmctldPort=$ctld_port
SlurmdPort=$slurmd_port
SlurmUser=$user
SlurmdUser=$user
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$dir/munge/munge.socket
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/slurmctld.log
SlurmdLogFile=$dir/slurmd.log
SlurmctldDebug=info
SlurmdDebug=info
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SchedulerType=sched/backfill
MpiDefault=none
ReturnToService=2
MinJobAge=3600
MailProg=/bin/true
GresTypes=gpu
NodeName=$node NodeAddr=127.0.0.1 NodeHostname=$node CPUs=$cpus $topology Gres=gpu:2 State=UNKNOWN
PartitionName=kit Nodes=$node Default=YES MaxTime=INFINITE State=UP
EOF
# Slurm 22.05's gres/gpu drops a gpu without File= ("Removing file-less GPU" in slurmd's debug
# log: the node then registers 0 gpus and slurmctld sets it INVAL), and a File= that is not a
# device is "not a valid character or block device" (counted, but no CUDA_VISIBLE_DEVICES). So
# each gpu is a link in DIR to /dev/null, never opened (no cgroup constrains devices): Slurm
# takes the index from the name's last digits and sets CUDA_VISIBLE_DEVICES to it in the task,
# as on a GPU node; with no GPU it is just a number.
mkdir -p "$dir/gpus"
ln -s /dev/null "$dir/gpus/gpu0"
ln -s /dev/null "$dir/gpus/gpu1"
cat > "$dir/gres.conf" << EOF
NodeName=$node Name=gpu File=$dir/gpus/gpu[0-1]
EOF
cat > "$dir/env.sh" << EOF
# Written by tests/slurm/cluster.sh: source it to use the cluster in $dir.
export SLURM_CONF=$conf
export PATH="\$PATH:/usr/sbin:/sbin"
EOF

export SLURM_CONF=$conf
logs() {
    local f
    for f in "$dir/munge/munged.log" "$dir/slurmctld.log" "$dir/slurmd.log"; do
        [ -f "$f" ] || continue
        echo "---- last lines of $f" >&2
        tail -n 15 "$f" >&2
    done
}
slurmctld -f "$conf" || { logs; stop_cluster; die "slurmctld did not start; the logs are above"; }
slurmd -f "$conf" -N "$node" || { logs; stop_cluster; die "slurmd did not start; the logs are above"; }
state=""
for i in $(seq 300); do
    state=$(timeout 5 sinfo -h -n "$node" -o %T 2> /dev/null || true)
    case $state in idle) break ;; inval | drain*) break ;; esac # the last two are final
    sleep 0.2
done
if [ "$state" != idle ]; then
    logs
    stop_cluster
    die "the node $node is not idle (after $(since "$t") s sinfo says '${state:-nothing}'); the logs are above"
fi
say "cluster up in $(since "$t") s: node $node idle, $cpus CPUs, gres gpu:2; source $dir/env.sh"
