#!/usr/bin/env bash
# kill -9 during `mqss train`, then rerun the same command (its flags in
# another order): it must resume from the last checkpoint and finish.
# Usage: kill-resume.sh MQSS DIR REGISTRY
set -u
mqss=$1 dir=$2 registry=$3
# A fresh measurement cache too: one left by an earlier run answers every
# episode at once, and training can finish before the kill lands.
rm -rf "$dir" "$dir.db" "$dir.db-wal" "$dir.db-shm"
# Checkpoints every 4 updates, validations every 2: the kill lands after an
# update logged past the checkpoint (to be logged again on resume) and after
# a validation (to stay on the learning curve).
options=(--updates=12 --episodes=2 --checkpoint-every=4 --validate-every=2 --patience=10
  --bc-epochs=5)
args=(train --out="$dir" --registry="$registry" --kernel=mm --targets=host "${options[@]}"
  --db="$dir.db")
checkpointed() { grep -o '"update":[0-9]*' "$dir/progress.json" 2>/dev/null | cut -d: -f2; }
logged() { tail -n 1 "$dir/log.csv" 2>/dev/null | cut -d, -f1; }
# mqss itself in the background, so that $! is its pid: a shell function
# there runs in a subshell, and killing that left mqss training on beside
# the rerun, both writing the checkpoint.
"$mqss" "${args[@]}" > /dev/null 2>&1 &
pid=$!
for _ in $(seq 1 1200); do
  [ -f "$dir/progress.json" ] && break
  sleep 0.1
done
# A second run into the directory while the first writes there is refused.
"$mqss" "${args[@]}" > /dev/null 2> "$dir.concurrent" && echo "a concurrent run was not refused"
echo "concurrent: $(grep -o 'another `mqss train` is writing into' "$dir.concurrent")"
# Killed once an update past the checkpoint is logged (the next checkpoint
# is three updates away, seconds after the few milliseconds this takes).
for _ in $(seq 1 1200); do
  c=$(checkpointed) l=$(logged)
  [ -n "$c" ] && [[ "$l" =~ ^[0-9]+$ ]] && [ "$l" -gt "$c" ] && break
  sleep 0.05
done
kill -9 "$pid"
wait "$pid" 2>/dev/null
[ -f "$dir/progress.json" ] || { echo "no checkpoint was written"; exit 1; }
echo "killed at checkpoint $(checkpointed), update $(logged) logged"
[ "$(logged)" -gt "$(checkpointed)" ] && echo "logged past the checkpoint: yes"
# The same run typed otherwise (flags reordered, a default given) resumes.
"$mqss" train --db="$dir.db" --seed=1 --targets=host --kernel=mm --registry="$registry" \
  --out="$dir" "${options[@]}"
# The log holds each update once: the updates after the checkpoint, trained
# again, were logged again.
echo "logged updates: $(tail -n +2 "$dir/log.csv" | cut -d, -f1 | tr '\n' ' ')"
# The learning curve shows every validation, those before the kill too.
validations=$(tail -n +2 "$dir/log.csv" | cut -d, -f11 | grep -c .)
points=$(grep -c '<circle' "$dir/learning-curve.svg")
echo "validation points: $points of $validations"
# Another run (another seed) into the same directory is refused, its
# checkpoint and models kept.
"$mqss" "${args[@]}" --seed=2 > /dev/null 2> "$dir.other" && echo "another run was not refused"
echo "another run: $(grep -o 'holds a checkpoint of another training run' "$dir.other")"
# The checkpoint records its own progress: progress.json lost or damaged
# does not stop a rerun (the run is finished: it trains nothing more).
mv "$dir/progress.json" "$dir/progress.saved"
"$mqss" "${args[@]}" > /dev/null 2> "$dir.lost" || echo "a rerun without progress.json failed"
echo "without progress.json: $(grep -o 'resuming from .*checkpoint.pt at update 12' "$dir.lost")"
echo "garbage" > "$dir/progress.json"
"$mqss" "${args[@]}" > /dev/null 2> "$dir.lost" || echo "a rerun with garbage progress.json failed"
echo "garbage progress.json: $(grep -o 'resuming from .*checkpoint.pt at update 12' "$dir.lost")"
# A checkpoint that records none (as written before it did) and has no
# readable progress.json is neither resumed nor written over.
python3 - "$dir/checkpoint.pt" <<'EOF'
import json, sys
raw = open(sys.argv[1], "rb").read()
magic, header, weights = raw.split(b"\n", 2)
metadata = json.loads(header)
del metadata["figures"]["progress"]
open(sys.argv[1], "wb").write(magic + b"\n" + json.dumps(metadata).encode() + b"\n" + weights)
EOF
before=$(md5sum < "$dir/checkpoint.pt")
"$mqss" "${args[@]}" > /dev/null 2> "$dir.lost" && echo "a checkpoint without progress was not refused"
echo "no progress: $(grep -o 'has no readable progress' "$dir.lost")"
[ "$(md5sum < "$dir/checkpoint.pt")" = "$before" ] && echo "checkpoint kept: yes"
