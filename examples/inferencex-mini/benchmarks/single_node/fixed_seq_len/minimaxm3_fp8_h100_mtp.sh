#!/usr/bin/env bash
set -eo pipefail
# H100 MiniMax-M3 MXFP8 fixed-seq-len with an EAGLE3 draft head: the proven
# spec-decode configuration on this SKU.

source "$(dirname "$0")/../../benchmark_lib.sh"
check_env_vars MODEL TP CONC ISL OSL RESULT_FILENAME PORT

DRAFT_MODEL="Inferact/MiniMax-M3-EAGLE3"
NUM_SPEC_TOKENS=3
SPEC_CONFIG="{\"method\": \"eagle3\", \"model\": \"$DRAFT_MODEL\", \"num_speculative_tokens\": $NUM_SPEC_TOKENS}"

vllm serve "$MODEL" \
    --host 0.0.0.0 \
    --port "$PORT" \
    --tensor-parallel-size "$TP" \
    --gpu-memory-utilization 0.90 \
    --max-num-seqs $((2 * CONC)) \
    --speculative-config "$SPEC_CONFIG" \
    --trust-remote-code > "$SERVER_LOG" 2>&1 &
SERVER_PID=$!

wait_for_server_ready --port "$PORT" --server-pid "$SERVER_PID"
run_benchmark_serving \
    --model "$MODEL" \
    --port "$PORT" \
    --backend vllm \
    --input-len "$ISL" \
    --output-len "$OSL" \
    --max-concurrency "$CONC" \
    --result-filename "$RESULT_FILENAME" \
    --use-chat-template
