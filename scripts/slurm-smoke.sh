#!/usr/bin/env bash
# Proves `octal family --slurm` and `octal census --slurm` on a real Slurm:
# installs Debian's slurm-wlm and munge, configures a one-node cluster on
# localhost, submits a small Cookie Cutter family as a job array, requeues
# one running task midway, waits, collects, and checks that the table
# equals a local `octal family` run (every column but the timings); then
# submits the two-digit census (one task a class still open after the
# probe), collects it, and checks that its classes equal a local census
# with --member-budget 0 (every field but the timings).
#
# Needs root (it writes /etc/slurm and starts the daemons). Not part of
# .ci/run. Usage: scripts/slurm-smoke.sh [K-RANGE] [VALUES]
set -euo pipefail

K=${1:-1..8}
TO=${2:-5e5}
root=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d /tmp/octal-slurm.XXXXXX)
say() { printf '== %s\n' "$*"; }
wait_job() { # until job $1 has left the queue, an hour at most
  for _ in $(seq 3600); do
    [ -z "$(squeue -h -j "$1" -o %i)" ] && break
    sleep 1
  done
}

say "installing slurm-wlm and munge"
if ! command -v slurmctld >/dev/null || ! command -v munged >/dev/null; then
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq slurm-wlm munge >/dev/null
fi
dpkg-query -W slurm-wlm munge

say "building octal"
cargo build --release --quiet --manifest-path "$root/Cargo.toml"
octal="$root/target/release/octal"

say "configuring a one-node cluster on localhost"
host=$(hostname -s)
cpus=$(nproc)
mem=$(awk '/MemTotal/ {print int($2 / 1024 * 0.8)}' /proc/meminfo)
mkdir -p /etc/slurm /var/spool/slurmctld /var/spool/slurmd /var/log/slurm /run/munge
cat >/etc/slurm/slurm.conf <<EOF
ClusterName=octal-smoke
SlurmctldHost=$host(127.0.0.1)
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
SwitchType=switch/none
MpiDefault=none
ReturnToService=2
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
StateSaveLocation=/var/spool/slurmctld
SlurmdSpoolDir=/var/spool/slurmd
SlurmctldPidFile=/run/slurmctld.pid
SlurmdPidFile=/run/slurmd.pid
SlurmctldLogFile=/var/log/slurm/slurmctld.log
SlurmdLogFile=/var/log/slurm/slurmd.log
JobRequeue=1
KillWait=30
MinJobAge=3600
NodeName=$host NodeAddr=127.0.0.1 CPUs=$cpus RealMemory=$mem State=UNKNOWN
PartitionName=smoke Nodes=$host Default=YES MaxTime=INFINITE State=UP
EOF
if [ ! -s /etc/munge/munge.key ]; then
  mkdir -p /etc/munge
  dd if=/dev/urandom of=/etc/munge/munge.key bs=1024 count=1 status=none
fi
chown -R munge:munge /etc/munge /run/munge /var/log/munge /var/lib/munge 2>/dev/null || true
chmod 400 /etc/munge/munge.key
pkill -x slurmctld 2>/dev/null || true
pkill -x slurmd 2>/dev/null || true
pgrep -x munged >/dev/null || runuser -u munge -- /usr/sbin/munged
sleep 1
slurmctld -c
slurmd
for _ in $(seq 60); do
  state=$(sinfo -h -n "$host" -o %t 2>/dev/null || true)
  [ "$state" = "idle" ] && break
  scontrol update nodename="$host" state=resume 2>/dev/null || true
  sleep 1
done
sinfo

say "submitting cookie-cutter k=$K to $TO as a job array"
"$octal" family cookie-cutter --k "$K" --to "$TO" --slurm "$work/fam" --quiet >/dev/null
job=$(sbatch --parsable "$work/fam/family.sbatch")
echo "job $job"

say "requeueing one running task midway"
requeued=""
for _ in $(seq 600); do
  running=$(squeue -h -j "$job" -t RUNNING -o %i | head -n 1)
  if [ -n "$running" ]; then
    sleep 1
    if squeue -h -j "$job" -t RUNNING -o %i | grep -qx "$running"; then
      scontrol requeue "$running"
      requeued=$running
      echo "requeued $running"
      break
    fi
  fi
  sleep 0.2
done
[ -n "$requeued" ] || { echo "no task was running long enough to requeue"; exit 1; }

say "waiting for the array to finish"
wait_job "$job"
squeue -h -j "$job" | grep . && { echo "the array did not finish"; exit 1; }
sacct -j "$job" 2>/dev/null | head -n 20 || true
echo "task logs:"
tail -n +1 "$work"/fam/logs/*.out | head -n 60

say "collecting"
"$octal" family collect "$work/fam"

say "local run of the same family"
"$octal" family cookie-cutter --k "$K" --to "$TO" --out "$work/local" --quiet >/dev/null

strip() { # every column but seconds, found by its header
  awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "seconds") s = i }
           { out = ""; for (i = 1; i <= NF; i++) if (i != s) out = out $i ","; print out }' "$1"
}
if diff <(strip "$work/fam/family.csv") <(strip "$work/local/family.csv"); then
  say "PASS: the cluster's table equals the local table ($(($(wc -l <"$work/local/family.csv") - 1)) members, task $requeued requeued)"
else
  say "FAIL: the tables differ"
  exit 1
fi

census=(census --digits 2 --to 8192 --probe 1024)
say "the two-digit census as a job array (one task a class still open)"
"$octal" "${census[@]}" --slurm "$work/census" --quiet >/dev/null
tasks=$(grep -c '"index"' "$work/census/manifest.json")
job=$(sbatch --parsable "$work/census/family.sbatch")
echo "job $job: $tasks tasks"
wait_job "$job"
squeue -h -j "$job" | grep . && { echo "the census array did not finish"; exit 1; }
"$octal" "${census[@]}" --collect "$work/census" --quiet >/dev/null
"$octal" "${census[@]}" --member-budget 0 --out "$work/census-local" --quiet >/dev/null
classes() { # the classes of a census.jsonl, without timings or provenance
  python3 -c 'import json, sys
for line in open(sys.argv[1]):
    row = json.loads(line)
    if "code" in row:
        row.pop("seconds", None); row.pop("checked", None)
        print(json.dumps(row, sort_keys=True))' "$1"
}
if diff <(classes "$work/census/census.jsonl") <(classes "$work/census-local/census.jsonl") >/dev/null; then
  say "PASS: the cluster's census equals the local census ($(classes "$work/census-local/census.jsonl" | wc -l) classes, $tasks tasks)"
else
  say "FAIL: the censuses differ"
  exit 1
fi
