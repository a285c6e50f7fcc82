#!/usr/bin/env bash
# A one-node Slurm cluster on this machine, for `kiln explore --executor slurm`
# and its test (docs/explore.md "On a Slurm cluster"). Needs root and Debian's
# slurm-wlm and munge (scripts/install-deps.sh installs them).
#   scripts/slurm_local.sh start    munged, slurmctld and slurmd started; waits until the node is idle
#   scripts/slurm_local.sh stop     what start started, stopped
#   scripts/slurm_local.sh status   the daemons and sinfo
# The configuration goes to $SLURM_CONF (default /etc/slurm/slurm.conf), where
# sbatch finds it; a configuration this script did not write is never
# replaced. State and logs go to $KILN_SLURM_DIR (default /var/tmp/kiln-slurm).
# Exit codes: 0 done, 1 a daemon did not come up (its log is printed),
# 2 usage, 3 not root, no Slurm installed or a foreign slurm.conf.
set -uo pipefail

conf="${SLURM_CONF:-/etc/slurm/slurm.conf}"
dir="${KILN_SLURM_DIR:-/var/tmp/kiln-slurm}"
mark="# written by kiln's scripts/slurm_local.sh"
host="$(hostname -s)"

die() {
  echo "slurm_local.sh: $2" >&2
  exit "$1"
}

ours() { [[ -f "$conf" ]] && head -1 "$conf" | grep -qF "$mark"; }
alive() { [[ -f "$1" ]] && kill -0 "$(cat "$1")" 2>/dev/null; }

write_conf() {
  if [[ -f "$conf" ]] && ! ours; then
    die 3 "$conf exists and was not written by this script; set SLURM_CONF to another path to use a local cluster, or submit to the cluster it describes"
  fi
  mkdir -p "$(dirname "$conf")" "$dir/state" "$dir/spool"
  # proctrack/linuxproc and task/none: no cgroups, so it runs in containers too.
  cat > "$conf.tmp" <<EOF
$mark
ClusterName=kilnlocal
SlurmctldHost=$host
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/slurmctld.log
SlurmdLogFile=$dir/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
MpiDefault=none
MailProg=/bin/true
ReturnToService=2
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
NodeName=$host CPUs=$(nproc) State=UNKNOWN
PartitionName=kiln Nodes=ALL Default=YES MaxTime=INFINITE State=UP
EOF
  mv "$conf.tmp" "$conf"
}

start() {
  [[ $(id -u) -eq 0 ]] || die 3 "start needs root (it runs munged and slurmd); run it as root"
  for b in munged slurmctld slurmd sbatch; do
    command -v "$b" > /dev/null || die 3 "$b not found; run scripts/install-deps.sh"
  done
  write_conf
  export SLURM_CONF="$conf"
  mkdir -p /run/munge && chown munge:munge /run/munge
  if [[ ! -f /etc/munge/munge.key ]]; then
    mungekey --create --keyfile=/etc/munge/munge.key && chown munge:munge /etc/munge/munge.key
  fi
  if ! alive /run/munge/munged.pid; then
    runuser -u munge -- munged || die 1 "munged did not start"
    touch "$dir/munged.ours"
  fi
  alive "$dir/slurmctld.pid" || slurmctld || die 1 "slurmctld did not start: $(tail -3 "$dir/slurmctld.log" 2>/dev/null)"
  alive "$dir/slurmd.pid" || slurmd || die 1 "slurmd did not start: $(tail -3 "$dir/slurmd.log" 2>/dev/null)"
  for _ in $(seq 60); do
    state="$(sinfo -h -n "$host" -o %t 2>/dev/null)"
    if [[ "$state" == idle* || "$state" == mix* || "$state" == alloc* ]]; then
      echo "slurm_local.sh: node $host $state, partition kiln, SLURM_CONF=$conf"
      return 0
    fi
    sleep 1
  done
  die 1 "the node did not become idle within 60 s: $(sinfo 2>&1 | tail -2 | tr '\n' ' ') $(tail -3 "$dir/slurmd.log" 2>/dev/null)"
}

stop() {
  for d in slurmd slurmctld; do
    if alive "$dir/$d.pid"; then
      pid="$(cat "$dir/$d.pid")"
      kill "$pid"
      for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    fi
  done
  if [[ -f "$dir/munged.ours" ]] && alive /run/munge/munged.pid; then
    kill "$(cat /run/munge/munged.pid)"
    rm -f "$dir/munged.ours"
  fi
  # The state is the jobs of this run; the next start begins empty.
  rm -rf "$dir/state" "$dir/spool"
  echo "slurm_local.sh: stopped"
}

status() {
  for d in slurmctld slurmd; do
    alive "$dir/$d.pid" && echo "$d running (pid $(cat "$dir/$d.pid"))" || echo "$d stopped"
  done
  alive /run/munge/munged.pid && echo "munged running" || echo "munged stopped"
  SLURM_CONF="$conf" sinfo 2>&1
}

case "${1:-}" in
  start) start ;;
  stop) stop ;;
  status) status ;;
  *) die 2 "usage: scripts/slurm_local.sh start|stop|status" ;;
esac
