#!/usr/bin/env bash
# forwards to ../snap.sh (the workloads call ../snap.sh relative to their scenario dir)
exec "$(cd "$(dirname "$0")" && pwd)/../snap.sh" "$@"
