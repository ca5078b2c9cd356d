#!/usr/bin/env bash
# Instructions per message for every operation of examples/corpus_icount.rs, under callgrind:
# (Ir at N passes - Ir at 0 passes) / (N x messages), so start-up and corpus loading cancel.
#
#   bash benches/pfcp-wire-bench/benches/corpus_icount.sh [N] [cargo args...]
#
# Needs valgrind and the oracle corpus (PFCP_ORACLE_DIR or ../shared/oracle). Prints TSV.
set -euo pipefail
cd "$(dirname "$0")/../../.."
N="${1:-5}"
shift || true
cargo build --quiet --release -p pfcp-wire-bench --example corpus_icount "$@"
BIN="${CARGO_TARGET_DIR:-target}/release/examples/corpus_icount"
MSGS=$("$BIN" rs-parse 0 2>&1 | sed -n 's/^corpus: \([0-9]*\) of.*/\1/p')

ir() {
  valgrind --tool=callgrind --callgrind-out-file=/dev/null "$BIN" "$1" "$2" 2>&1 >/dev/null |
    sed -n 's/.*Collected : \([0-9]*\).*/\1/p'
}

printf 'op\tinstructions_per_message\n'
"$BIN" list | while read -r op; do
  base=$(ir "$op" 0)
  full=$(ir "$op" "$N")
  printf '%s\t%s\n' "$op" "$(( (full - base) / (N * MSGS) ))"
done
