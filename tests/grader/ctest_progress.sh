#!/bin/sh
# Runs CTest so that no wait is silent: a line as each test starts and ends (CTest's own), and
# every 15 s a line naming each test still running and for how long. A failing test's output
# follows its end line, as with --output-on-failure; a passing test's output stays in its logs.
# tests/grader/check.cmake runs it for make check, check-grade and check-stageK.
# Usage: ctest_progress.sh CTEST [CTEST ARGUMENTS...]   (its exit status is CTest's)
# CTest runs verbose (-V), its output read line by line by the shell (awk would wait for
# blocks); a ticker adds a line with the time every 5 s.
set -u
status=$(mktemp)
buffers=$(mktemp -d)
trap 'rm -rf "$status" "$buffers"' EXIT
tick=@@kit-progress-tick@@
{
    { "$@" -V 2>&1; echo $? > "$status"; } &
    tests=$!
    # The ticker's sleep writes nothing: only the loop holds the pipe, and it ends with CTest, its
    # sleep with it (waited for by `wait`, which a signal cuts short): a sleep left behind kept
    # Ninja, which waits for every holder of its output, waiting up to 5 s after each grading.
    (
        sleeping=""
        trap '[ -z "$sleeping" ] || kill "$sleeping" 2> /dev/null; exit 0' TERM
        while kill -0 "$tests" 2> /dev/null; do
            echo "$tick $(date +%s)"
            sleep 5 > /dev/null 2>&1 &
            sleeping=$!
            wait "$sleeping"
            sleeping=""
        done
    ) &
    ticker=$!
    wait "$tests"
    kill "$ticker" 2> /dev/null
} | {
    now=$(date +%s)
    running="" # the numbers of the tests started and not ended
    summary=0  # after "N% tests passed": CTest's summary, printed as it is
    while IFS= read -r line; do
        case $line in
        "$tick "*)
            now=${line#"$tick "}
            for t in $running; do
                eval "started=\$start_$t last=\$said_$t name=\$name_$t"
                if [ $((now - started)) -ge 15 ] && [ $((now - last)) -ge 15 ]; then
                    echo "      ... still running after $((now - started)) s: $name"
                    eval "said_$t=$now"
                fi
            done
            continue
            ;;
        esac
        if [ "$summary" = 1 ]; then
            case $line in
            "Errors while running CTest" | "Output from these tests are in: "* | "Use \"--rerun-failed --output-on-failure\""*) ;;
            *) printf '%s\n' "$line" ;;
            esac
            continue
        fi
        case $line in
        *"% tests passed, "*)
            summary=1
            printf '\n%s\n' "$line"
            ;;
        "    Start "*)
            t=${line#    Start }
            t=${t%%:*}
            t=${t# }
            case $t in *[!0-9]* | "") printf '%s\n' "$line"; continue ;; esac
            name=${line#*: }
            eval "start_$t=$now said_$t=$now name_$t=\$name header_$t=1"
            running="$running $t"
            : > "$buffers/$t"
            printf '%s\n' "$line"
            ;;
        [0-9]*"/"[0-9]*" Test "*"#"*)
            printf '%s\n' "$line"
            t=${line#*#}
            t=${t%%:*}
            new=""
            for r in $running; do [ "$r" = "$t" ] || new="$new $r"; done
            running=$new
            case $line in
            *"Passed"* | *"Skipped"* | *"Not Run"*) ;;
            *) [ -f "$buffers/$t" ] && cat "$buffers/$t" ;;
            esac
            rm -f "$buffers/$t"
            ;;
        [0-9]*": "*)
            t=${line%%:*}
            case $t in *[!0-9]*) printf '%s\n' "$line"; continue ;; esac
            text=${line#*: }
            eval "header=\${header_$t:-0}"
            if [ "$header" = 1 ]; then # CTest's lines about the command, before its output
                case $text in
                "Test timeout computed"*) eval "header_$t=0" ;;
                esac
                continue
            fi
            printf '%s\n' "$text" >> "$buffers/$t"
            ;;
        "test "[0-9]* | "" | "UpdateCTestConfiguration"* | "Parse Config file"* | "Constructing a list of tests" | \
            "Done constructing a list of tests" | "Updating test list for fixtures" | "Added "*" tests to meet fixture"* | \
            "Checking test dependency graph"* | "Internal ctest changing into directory"*) ;;
        *) printf '%s\n' "$line" ;;
        esac
    done
}
code=$(cat "$status" 2> /dev/null)
exit "${code:-1}"
