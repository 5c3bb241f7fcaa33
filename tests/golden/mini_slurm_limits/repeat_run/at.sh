#!/usr/bin/env bash
# forwards to ../at.sh (the workloads call ../at.sh relative to their scenario dir)
exec "$(cd "$(dirname "$0")" && pwd)/../at.sh" "$@"
