# Shared functions for the testcluster scripts; sourced, not run. Needs bash 4+.
# shellcheck shell=bash

tc_name=${0##*/}

die() {
  echo "testcluster/$tc_name: error: $*" >&2
  exit 1
}

say() {
  echo "testcluster/$tc_name: $*" >&2
}

# Makes DIR absolute (creating it) and prints it.
abs_dir() {
  mkdir -p "$1" || die "cannot create directory $1"
  (cd "$1" && pwd)
}

# True when the process exists and is not a zombie.
alive() {
  local pid=$1 state
  [[ -n $pid ]] || return 1
  kill -0 "$pid" 2>/dev/null || return 1
  state=$(awk '{print $3}' "/proc/$pid/stat" 2>/dev/null || true)
  [[ $state != Z ]]
}

# True when something on 127.0.0.1 accepts connections on PORT or the port cannot be bound.
port_busy() {
  local port=$1
  if command -v python3 >/dev/null; then
    python3 - "$port" <<'PY' && return 1 || return 0
import socket, sys
s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
try:
    s.bind(("127.0.0.1", int(sys.argv[1])))
except OSError:
    sys.exit(1)
finally:
    s.close()
PY
  fi
  # Without python3: busy when a connection succeeds.
  (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null
}

# Prints a free TCP port on 127.0.0.1, avoiding the ports in the arguments (already picked ones).
free_port() {
  local port
  for _ in $(seq 1 50); do
    if command -v python3 >/dev/null; then
      port=$(python3 -c 'import socket
s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()')
    else
      port=$((20000 + RANDOM % 12000))
    fi
    if [[ " $* " != *" $port "* ]] && ! port_busy "$port"; then
      echo "$port"
      return 0
    fi
  done
  die "found no free TCP port on 127.0.0.1 after 50 attempts"
}

# Dies with a clear message when an explicitly requested PORT is taken.
require_free_port() {
  local what=$1 port=$2
  if ! [[ $port =~ ^[0-9]+$ ]] || ((port < 1 || port > 65535)); then
    die "$what port '$port' is not a TCP port number"
  fi
  if port_busy "$port"; then
    die "$what port $port on 127.0.0.1 is already in use (pick another one, or leave the option out for a free one)"
  fi
}

# launch NAME LOG COMMAND...: runs COMMAND in the background with stdin from /dev/null and stdout+stderr
# appended to LOG (never a pipe, so callers that read this script's output do not hang); sets
# LAUNCHED_PID and writes PIDS_DIR/NAME.pid.
launch() {
  local name=$1 log=$2
  shift 2
  {
    printf '=== %s testcluster: starting %s:' "$(date -u +%FT%TZ)" "$name"
    printf ' %q' "$@"
    printf '\n'
  } >>"$log"
  "$@" </dev/null >>"$log" 2>&1 &
  LAUNCHED_PID=$!
  echo "$LAUNCHED_PID" >"$PIDS_DIR/$name.pid"
}

# wait_ready PID TIMEOUT_SECONDS CHECK...: polls CHECK until it succeeds (0), the process exits
# (1, EXIT_STATUS set to its exit status) or the time is up (2).
# shellcheck disable=SC2034 # EXIT_STATUS is read by the callers
wait_ready() {
  local pid=$1 timeout=$2
  shift 2
  local deadline=$((SECONDS + timeout))
  EXIT_STATUS=
  while ((SECONDS < deadline)); do
    if ! alive "$pid"; then
      set_exit_status "$pid"
      return 1
    fi
    if "$@" >/dev/null 2>&1; then
      return 0
    fi
    sleep 0.25
  done
  return 2
}

# Sets EXIT_STATUS to the exit status of a dead child of this shell. Runs in this shell, never in a
# $(...) subshell, which could not wait for this shell's children.
# shellcheck disable=SC2034 # EXIT_STATUS is read by the callers
set_exit_status() {
  local rc=0
  wait "$1" 2>/dev/null || rc=$?
  if ((rc == 127)); then
    # 127 is also what wait answers for a process that is not our child.
    EXIT_STATUS="127 (or unknown: not a child of this shell)"
  elif ((rc > 128)); then
    EXIT_STATUS="$rc (killed by signal $((rc - 128)))"
  else
    EXIT_STATUS=$rc
  fi
}

# print_log LOG [OFFSET]: prints LOG from byte OFFSET (default: all of it), framed, for failure reports.
print_log() {
  local log=$1 offset=${2:-0}
  echo "----- $log$( ((offset > 0)) && echo " (this run's part, from byte $offset)") -----" >&2
  if [[ -s $log ]] && (($(stat -c %s "$log") > offset)); then
    tail -c "+$((offset + 1))" "$log" >&2
  else
    echo "(the log is empty: the process wrote nothing to stdout or stderr)" >&2
  fi
  echo "----- end of $log -----" >&2
}

# Prints the size of FILE in bytes (0 when it does not exist).
file_size() {
  stat -c %s "$1" 2>/dev/null || echo 0
}

# stop_pid NAME: stops the process recorded in PIDS_DIR/NAME.pid if it is still ours (its command line
# mentions DIR), TERM first, KILL after 15 s; removes the pid file. Idempotent.
stop_pid() {
  local name=$1 file="$PIDS_DIR/$1.pid" pid
  [[ -f $file ]] || return 0
  pid=$(<"$file")
  if [[ $pid =~ ^[0-9]+$ ]] && alive "$pid" && tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | grep -qF -- "$DIR"; then
    kill -TERM "$pid" 2>/dev/null || true
    for _ in $(seq 1 60); do
      alive "$pid" || break
      sleep 0.25
    done
    if alive "$pid"; then
      say "$name (pid $pid) did not stop within 15 s; sending SIGKILL"
      kill -KILL "$pid" 2>/dev/null || true
      sleep 0.2
    fi
    say "stopped $name (pid $pid)"
  fi
  rm -f "$file"
}

# True when PIDS_DIR/NAME.pid names a live process of this DIR.
running() {
  local file="$PIDS_DIR/$1.pid" pid
  [[ -f $file ]] || return 1
  pid=$(<"$file")
  [[ $pid =~ ^[0-9]+$ ]] && alive "$pid" && tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | grep -qF -- "$DIR"
}
