#!/usr/bin/env bash
# Instructions per operation for every (operation, message) pair of examples/icount.rs, under
# callgrind: (Ir at N iterations - Ir at 0 iterations) / N, so process start-up and setup cancel.
#
#   bash benches/pfcp-wire-bench/benches/icount.sh [N]        (default N = 2000)
#
# Prints "op message instructions_per_op" lines (TSV). Needs valgrind.
set -euo pipefail
cd "$(dirname "$0")/../../.."
N="${1:-2000}"
cargo build --quiet --release -p pfcp-wire-bench --example icount
BIN="${CARGO_TARGET_DIR:-target}/release/examples/icount"
"$BIN" gate >/dev/null

ir() {
  valgrind --tool=callgrind --callgrind-out-file=/dev/null "$BIN" "$1" "$2" "$3" 2>&1 >/dev/null |
    sed -n 's/.*Collected : \([0-9]*\).*/\1/p'
}

printf 'op\tmessage\tinstructions_per_op\n'
"$BIN" list | while read -r op msg; do
  base=$(ir "$op" "$msg" 0)
  full=$(ir "$op" "$msg" "$N")
  printf '%s\t%s\t%s\n' "$op" "$msg" "$(( (full - base) / N ))"
done
