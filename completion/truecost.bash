# bash completion for truecost: its subcommands, each one's options (the
# options of `truecost CMD --help`), file names after file options, and the
# values of the options that take one of a few words.
# Installed as share/bash-completion/completions/truecost; or: source it.

_truecost_commands="run sweep soak runs show export import cost compare frontier report roofline gaps fit lockin decide monitor env doctor agent sim help"

# The options of each subcommand (tests/install checks them against --help).
_truecost_telem="--sysfs-root --nvml-lib --rocm-lib --nvidia-smi --rocm-smi"
_truecost_options() {
    case $1 in
    run)
        echo "--model --api -n --requests --duration --warmup -c --concurrency --rate --arrival
              --burstiness --max-concurrency --max-tokens --prompt --prompts --isl --isl-range
              --osl --workload --seed --slo --label --repeat --shard --start-at --db --json
              --no-progress --api-key-env --timeout --max-error-rate --telemetry
              --telemetry-interval --telemetry-token-env --sample-ms --idle-s $_truecost_telem
              --help" ;;
    sweep) # and every option of run, which the sweep passes on
        echo "-c --concurrency --rates --points --max-concurrency --arrival --burstiness --gpus
              --help" ;;
    soak) # and every option of run, which the soak passes on
        echo "--duration -c --rate --window --max-downtime --max-drift --max-error-rate --chunks
              --resume --json --help" ;;
    runs) echo "--json --db --help" ;;
    show) echo "--slo --json --db --help" ;;
    export) echo "--what --format -o --output --db --help" ;;
    import) echo "--db --json --help" ;;
    cost) echo "--profile --json --db --help" ;;
    compare)
        echo "--profile --profile-a --profile-b --claim --resamples --seed --gpu-specs --at --json
              --db --help" ;;
    frontier)
        echo "--profile --profile-a --profile-b --at --claim --demand --slo --resamples --seed --json
              --db --help" ;;
    report)
        echo "--profile --profile-a --profile-b --assessment --gaps --at --claim --slo --resamples
              --seed -o --output --format --force --db --help" ;;
    roofline)
        echo "--gpu --gpu-specs --model-bytes --params --kv-bytes --list --json --db --help" ;;
    gaps) echo "--ops --support --risk-patterns --dtype --json --help" ;;
    fit)
        echo "--gpu --gpu-specs --vram --gpus --task --ctx --concurrency --kv-dtype --dtype --batch
              --seq --lora-rank --lora-targets --optimizer --checkpointing --utilization
              --overhead --run --db --server-log --json --help" ;;
    lockin)
        echo "--samples --seed --json --running-saving-per-month --perf-ratio --gaps-top --gaps
              --perf --profile --profile-a --profile-b --at --soak --db --help" ;;
    decide)
        echo "--runs --gaps --soak --profile --profile-a --profile-b --at --samples --seed --json
              --db --help" ;;
    monitor) echo "--backend --interval --count --json $_truecost_telem --help" ;;
    env)
        echo "--json --diff --db --model --root --model-store --no-server --api-key-env
              --telemetry $_truecost_telem --help" ;;
    doctor) echo "--json --root --no-server --user --nvml-lib --rocm-lib --help" ;;
    agent)
        echo "--listen --port-file --interval --token-env --backend $_truecost_telem --help" ;;
    sim)
        echo "--listen --port-file --model --ttft-ms --prefill-tps --decode-tps --jitter-ms
              --max-batch --batch-slowdown --drift --leak-kb-per-request --fault --seed --truth
              --tokens-per-word --eos-after
              --max-body-bytes --close-after --help" ;;
    esac
}

# COMPREPLY from the words of $1 that start with $2.
_truecost_words() {
    local IFS=$'\n'
    COMPREPLY=($(IFS=$' \t\n' compgen -W "$1" -- "$2"))
}

_truecost_files() {
    local IFS=$'\n'
    compopt -o filenames 2>/dev/null
    COMPREPLY=($(compgen -f -- "$1"))
}

_truecost_dirs() {
    local IFS=$'\n'
    compopt -o filenames 2>/dev/null
    COMPREPLY=($(compgen -d -- "$1"))
}

_truecost() {
    local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD - 1]} cmd="" i
    COMPREPLY=()
    # --opt=VALUE: bash splits it at '=' (COMP_WORDBREAKS).
    if [[ $cur == "=" ]]; then
        cur=""
    elif [[ $prev == "=" && $COMP_CWORD -ge 2 ]]; then
        prev=${COMP_WORDS[COMP_CWORD - 2]}
    elif [[ $cur == --*=* ]]; then
        prev=${cur%%=*}
        cur=${cur#*=}
    fi
    for ((i = 1; i < COMP_CWORD; i++)); do
        case ${COMP_WORDS[i]} in
        -*) ;;
        *) cmd=${COMP_WORDS[i]}; break ;;
        esac
    done

    if [[ -z $cmd ]]; then
        if [[ $cur == -* ]]; then
            _truecost_words "--help --version" "$cur"
        else
            _truecost_words "$_truecost_commands" "$cur"
        fi
        return 0
    fi
    if [[ $cmd == help ]]; then
        [[ $COMP_CWORD -eq $((i + 1)) ]] && _truecost_words "$_truecost_commands" "$cur"
        return 0
    fi

    # The value of the option before the cursor.
    case $prev in
    --profile | --profile-a | --profile-b | --prompts | --db | --gaps | --ops | --support | \
        --risk-patterns | --gpu-specs | --assessment | --truth | --port-file | -o | --output | --nvml-lib | \
        --rocm-lib | --model-store | --server-log)
        _truecost_files "$cur"
        return 0 ;;
    --root | --sysfs-root)
        _truecost_dirs "$cur"
        return 0 ;;
    --nvidia-smi | --rocm-smi)
        COMPREPLY=($(compgen -c -- "$cur"))
        return 0 ;;
    --api)
        _truecost_words "auto ollama ollama-chat openai openai-chat llamacpp" "$cur"
        return 0 ;;
    --telemetry) # or an exporter's URL, http://HOST:PORT/metrics
        _truecost_words "auto none nvml rocm amdgpu rapl nvidia-smi rocm-smi http://" "$cur"
        return 0 ;;
    --backend)
        _truecost_words "auto nvml rocm amdgpu rapl nvidia-smi rocm-smi" "$cur"
        return 0 ;;
    --what)
        _truecost_words "requests chunks summary samples" "$cur"
        return 0 ;;
    --chunks)
        _truecost_words "sample all none" "$cur"
        return 0 ;;
    --workload)
        _truecost_words "chat reasoning summarize" "$cur"
        return 0 ;;
    --format)
        if [[ $cmd == report ]]; then
            _truecost_words "html md" "$cur"
        else
            _truecost_words "csv json" "$cur"
        fi
        return 0 ;;
    --dtype)
        if [[ $cmd == fit ]]; then
            _truecost_words "f32 f16 bf16 int8 int4 nf4" "$cur"
        else
            _truecost_words "fp32 fp16 bf16 fp8 int8 int4" "$cur"
        fi
        return 0 ;;
    --task)
        _truecost_words "serve lora qlora full" "$cur"
        return 0 ;;
    --kv-dtype)
        _truecost_words "f16 bf16 q8_0 q4_0 fp8" "$cur"
        return 0 ;;
    --optimizer)
        _truecost_words "adamw adamw-8bit adamw-bf16 sgd" "$cur"
        return 0 ;;
    --checkpointing)
        _truecost_words "none selective full" "$cur"
        return 0 ;;
    --model | -n | --requests | --duration | --warmup | -c | --concurrency | --max-tokens | \
        --prompt | --label | --repeat | --api-key-env | --timeout | --max-error-rate | \
        --sample-ms | --idle-s | --claim | --resamples | --seed | --gpu | --model-bytes | \
        --params | --kv-bytes | --samples | --running-saving-per-month | --perf-ratio | \
        --gaps-top | --interval | --count | --user | --listen | --ttft-ms | --prefill-tps | \
        --decode-tps | --jitter-ms | --max-batch | --fault | --max-body-bytes | \
        --telemetry-interval | --telemetry-token-env | --token-env | --window | \
        --max-downtime | --max-drift | --resume | --drift | --leak-kb-per-request | --vram | \
        --gpus | --ctx | --batch | --seq | --lora-rank | --lora-targets | --utilization | \
        --overhead | --run)
        return 0 ;; # a value only you know
    esac

    if [[ $cur == -* ]]; then
        _truecost_words "$(_truecost_options "$cmd")" "$cur"
    elif [[ $cmd == lockin || $cmd == decide || $cmd == env || $cmd == fit ]]; then
        _truecost_files "$cur" # the assessment FILE; env --diff's files; fit's MODEL
    fi
    return 0
}

complete -F _truecost truecost
