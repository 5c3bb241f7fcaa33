#!/usr/bin/env bash
# forwards to ../rec.sh (the workloads call ../rec.sh relative to their scenario dir)
exec "$(cd "$(dirname "$0")" && pwd)/../rec.sh" "$@"
