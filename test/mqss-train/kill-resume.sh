#!/usr/bin/env bash
# kill -9 during `mqss train`, then rerun the same command (its flags in
# another order): it must resume from the last checkpoint and finish.
# Usage: kill-resume.sh MQSS DIR REGISTRY
set -u
mqss=$1 dir=$2 registry=$3
# A fresh measurement cache too: one left by an earlier run answers every
# episode at once, and training can finish before the kill lands.
rm -rf "$dir" "$dir.db" "$dir.db-wal" "$dir.db-shm"
args=(train --out="$dir" --registry="$registry" --kernel=mm --targets=host
  --updates=12 --episodes=2 --checkpoint-every=1 --validate-every=3 --bc-epochs=5
  --db="$dir.db")
# mqss itself in the background, so that $! is its pid: a shell function
# there runs in a subshell, and killing that left mqss training on beside
# the rerun, both writing the checkpoint.
"$mqss" "${args[@]}" > /dev/null 2>&1 &
pid=$!
for _ in $(seq 1 600); do
  [ -f "$dir/progress.json" ] && break
  sleep 0.1
done
# A second run into the directory while the first writes there is refused.
"$mqss" "${args[@]}" > /dev/null 2> "$dir.concurrent" && echo "a concurrent run was not refused"
echo "concurrent: $(grep -o 'another `mqss train` is writing into' "$dir.concurrent")"
kill -9 "$pid"
wait "$pid" 2>/dev/null
[ -f "$dir/progress.json" ] || { echo "no checkpoint was written"; exit 1; }
echo "killed after $(grep -o '"update":[0-9]*' "$dir/progress.json")"
# The same run typed otherwise (flags reordered, a default given) resumes.
"$mqss" train --db="$dir.db" --seed=1 --targets=host --kernel=mm --registry="$registry" \
  --out="$dir" --updates=12 --episodes=2 --checkpoint-every=1 --validate-every=3 --bc-epochs=5
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
# A checkpoint without its progress is neither resumed nor written over.
mv "$dir/progress.json" "$dir/progress.saved"
"$mqss" "${args[@]}" > /dev/null 2> "$dir.lost" && echo "a checkpoint without progress was not refused"
echo "no progress: $(grep -o 'has no readable progress' "$dir.lost")"
echo "garbage" > "$dir/progress.json"
"$mqss" "${args[@]}" > /dev/null 2> "$dir.lost" && echo "a checkpoint with garbage progress was not refused"
echo "garbage progress: $(grep -o 'has no readable progress' "$dir.lost")"
