# regen.awk — rewrites one docs page with every marked transcript re-run, for
# docs/tools/regen.sh (read that file for the marker format).
# Variables: page (the name shown in messages), work (a private directory that
# stands for /tmp/ in the commands), stale (file that receives one line per
# block whose output changed), root (the repository, where commands run).
# The new page goes to stdout; a malformed page exits 2 with one message.

function fail(msg) {
    printf "%s:%d: %s\n", page, NR, msg > "/dev/stderr"
    failed = 1
    exit 2
}

# Runs one command line from the page; returns its output, /tmp/ restored.
function run(cmd,   script, out, line, n, rcfile, rc, errfile, err) {
    script = work "/cmd.sh"
    rcfile = work "/rc"
    errfile = work "/stderr"
    gsub(/\/tmp\//, work "/", cmd)
    printf "cd '%s' || exit 2\nexport TMPDIR='%s'\nunset MAKEFLAGS MFLAGS MAKELEVEL\n%s\n", root, work, cmd > script
    close(script)
    out = ""
    n = 0
    while (("sh " script " 2>" errfile "; echo $? > " rcfile) | getline line > 0) {
        gsub(work "/", "/tmp/", line)
        out = out line "\n"
        n++
    }
    close("sh " script " 2>" errfile "; echo $? > " rcfile)
    rc = ""
    getline rc < rcfile
    close(rcfile)
    if (rc != "0") {
        # A failing command's stderr says why; a passing one's (progress,
        # "Broken pipe" under head) is not part of the page.
        while ((getline line < errfile) > 0) err = err "\n  " line
        close(errfile)
        fail("`" shown "` exited with status " rc err)
    }
    return out
}

function note_if_stale(start, cmds, old, new) {
    if (old != new) printf "%s:%d: %s\n", page, start, cmds >> stale
}

BEGIN { state = "text" }

# A fenced transcript re-run line by line: <!-- run --> or <!-- run: a note -->
state == "text" && /^<!-- run( *| *: [^$][^>]*)-->$/ {
    print
    state = "want-fence"
    mark = NR
    next
}
# A raw region (tables, prose numbers): <!-- run: $ COMMAND --> ... <!-- end run -->
state == "text" && /^<!-- run: \$ .* -->$/ {
    print
    raw_cmd = $0
    sub(/^<!-- run: \$ /, "", raw_cmd)
    sub(/ -->$/, "", raw_cmd)
    state = "raw"
    mark = NR
    old = ""
    next
}
state == "raw" {
    if ($0 != "<!-- end run -->") { old = old $0 "\n"; next }
    shown = raw_cmd
    new = run(raw_cmd)
    note_if_stale(mark, raw_cmd, old, new)
    printf "%s", new
    print
    state = "text"
    next
}
state == "text" && /^<!-- illustration/ {
    print
    state = "want-fence-illustration"
    next
}
state ~ /^want-fence/ {
    if ($0 !~ /^```/) fail("a run or illustration marker must be followed by a ``` fence")
    print
    state = state == "want-fence" ? "block" : "illustration"
    old = ""; new = ""; cmds = ""
    next
}
state == "illustration" {
    print
    if ($0 ~ /^```/) state = "text"
    next
}
state == "block" && /^```/ {
    if (cmds == "") fail("the run block opened at line " mark " has no `$ command` line")
    note_if_stale(mark, cmds, old, new)
    printf "%s", new
    print
    state = "text"
    next
}
state == "block" {
    old = old $0 "\n"
    if (substr($0, 1, 2) == "$ ") {
        shown = substr($0, 3)
        cmds = cmds (cmds == "" ? "" : "; ") shown
        new = new $0 "\n" run(shown)
    }
    next
}
# Outside any marker: a fenced block that shows `$ command` transcripts must
# carry a marker, so no transcript escapes the check.
state == "text" && /^```/ {
    print
    state = "plain"
    opened = NR
    match($0, /^`+/)
    fence = substr($0, 1, RLENGTH)     # a ```` fence quotes Markdown: not checked
    next
}
state == "plain" {
    print
    if (index($0, fence) == 1 && $0 ~ /^`+ *$/) state = "text"
    else if (fence == "```" && substr($0, 1, 2) == "$ ") fail("the ``` block opened at line " opened " shows a `$ ` transcript with no <!-- run --> or <!-- illustration --> marker before it")
    next
}
{ print }
END {
    if (failed) exit 2
    if (state != "text") { NR = mark; fail("a marked block is not closed") }
}
