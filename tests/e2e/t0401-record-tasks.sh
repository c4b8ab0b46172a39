# ocrec record follows every thread and child of the workload (inherit, one
# ring buffer per CPU), attaches to a running process with -p (COMM/FORK/MMAP2
# synthesized from /proc), and records every CPU with -a.
. "$(dirname "$0")/../lib.sh"
need_cmd perf cc
export HOME="$TMP/home"
cc_prog threads "$ROOT/tests/progs/record-threads.c" -pthread || { fail "compile record-threads.c" "cc failed"; exit 1; }
cc_prog forks "$ROOT/tests/progs/record-fork.c" || { fail "compile record-fork.c" "cc failed"; exit 1; }
cd "$TMP" || exit 1

# Four threads and main: samples in thread_work from four distinct threads, main_work from main.
"$OCREC" record -q -N -e task-clock -o thr.data ./threads 4 30000000 2>thr.err
check_eq "threads: record exits 0" 0 $?
# "pid/tid ip sym" lines
perf script -i thr.data -F pid,tid,ip,sym 2>/dev/null | sed 's|/| |' >thr.txt
check_eq "threads: thread_work sampled in 4 threads" 4 "$(awk '$4 == "thread_work" {print $2}' thr.txt | sort -u | wc -l)"
check_eq "threads: main_work sampled in the main thread" 1 "$(awk '$4 == "main_work" && $1 == $2 {print $2}' thr.txt | sort -u | wc -l)"
check_eq "threads: all samples from one process" 1 "$(awk '{print $1}' thr.txt | sort -u | wc -l)"
check_eq "threads: perf sees 4 thread FORKs" 4 "$(perf script -i thr.data --show-task-events 2>/dev/null | grep -c 'PERF_RECORD_FORK')"

# Every sample of every thread, as perf reads them, also read by ocrec script.
n=$(perf script -i thr.data 2>/dev/null | wc -l)
check_match "threads: samples recorded" '^[1-9][0-9]*$' "$n"
check_eq "threads: ocrec script reads the same samples as perf script" \
	"$(perf script -F tid,pid,time,ip -i thr.data 2>/dev/null | md5sum)" \
	"$("$OCREC" script -F tid,pid,time,ip -i thr.data 2>/dev/null | md5sum)"

# Three children (one exec'ing itself) and the parent: every one sampled in its function.
"$OCREC" record -q -N -e cpu-clock -o fork.data ./forks 3 30000000 2>fork.err
check_eq "fork: record exits 0" 0 $?
perf script -i fork.data -F pid,ip,sym 2>/dev/null >fork.txt
check_eq "fork: child_work sampled in 2 children" 2 "$(awk '$3 == "child_work" {print $1}' fork.txt | sort -u | wc -l)"
check_eq "fork: exec'd child sampled in exec_child_work" 1 "$(awk '$3 == "exec_child_work" {print $1}' fork.txt | sort -u | wc -l)"
check_eq "fork: parent sampled in parent_work" 1 "$(awk '$3 == "parent_work" {print $1}' fork.txt | sort -u | wc -l)"
check_eq "fork: 4 processes sampled in their own functions" 4 \
	"$(awk '$3 ~ /_work$/ {print $1}' fork.txt | sort -u | wc -l)"

check_eq "fork: ocrec script reads the same samples as perf script" \
	"$(perf script -F tid,pid,time,ip -i fork.data 2>/dev/null | md5sum)" \
	"$("$OCREC" script -F tid,pid,time,ip -i fork.data 2>/dev/null | md5sum)"

# -p: attach to a running process with two threads; ocrec stops when it exits.
# The process is stopped from the time its threads exist until ocrec has its
# events open (their fds appear): on a fast machine the work is over in half a
# second, sooner than a sanitizer-built ocrec may attach.
./threads 2 1200000000 &
tp=$!
i=0
while [ "$(ls /proc/$tp/task 2>/dev/null | wc -l)" -lt 3 ] && [ $i -lt 100 ]; do sleep 0.01; i=$((i + 1)); done
kill -STOP $tp
"$OCREC" record -N -e cpu-clock -p $tp -o attach.data >attach.out 2>&1 &
rec=$!
i=0
while [ "$(ls -l /proc/$rec/fd 2>/dev/null | grep -c perf_event)" -lt 3 ] && [ $i -lt 500 ]; do sleep 0.01; i=$((i + 1)); done
kill -CONT $tp
wait $rec; rc=$?
wait $tp
check_eq "-p: record exits 0 when the process ends" 0 "$rc"
check_match "-p: summary" 'Captured and wrote .* attach.data \([0-9]+ samples' "$(cat attach.out)"
perf script -i attach.data -F pid,tid,ip,sym 2>/dev/null | sed 's|/| |' >attach.txt
check_eq "-p: samples only from the attached process" "$tp" "$(awk '{print $1}' attach.txt | sort -u | tr -d '\n')"
check_eq "-p: thread_work sampled in both threads" 2 "$(awk '$4 == "thread_work" {print $2}' attach.txt | sort -u | wc -l)"
check_match "-p: COMM synthesized from /proc" "PERF_RECORD_COMM: threads:$tp/$tp" "$(perf script -i attach.data --show-task-events 2>/dev/null)"
check_match "-p: MMAP2 of the program synthesized" "PERF_RECORD_MMAP2 $tp/$tp: .* r-xp $TMP/threads" "$(perf script -i attach.data --show-mmap-events 2>/dev/null)"
"$OCREC" record -e cpu-clock -p 999999999 -o none.data >none.out 2>&1
check_eq "-p of a missing process: exit 2" 2 $?
check_match "-p of a missing process: named" '^ocrec: process 999999999: no such process$' "$(cat none.out)"

# -a: every CPU, until the workload ends; other processes show up too.
"$OCREC" record -q -N -a -e cpu-clock -o all.data ./threads 2 20000000 2>all.err
check_eq "-a: record exits 0" 0 $?
check_match "-a: samples carry the CPU" 'CPU' "$(perf evlist -v -i all.data 2>/dev/null)"
check_eq "-a: thread_work sampled" yes "$(perf script -i all.data -F ip,sym 2>/dev/null | grep -q thread_work && echo yes)"
