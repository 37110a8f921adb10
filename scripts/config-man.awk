# flickd.toml(5) from config/flickd.toml (scripts/man.sh runs it): the file's comments are its
# documentation, so the page is made from them and cannot drift from the keys the daemon reads
# (a test keeps config/flickd.toml equal to ConfigSchema, another the page equal to the file).
#
#   awk -v date="Month D, YYYY" -f scripts/config-man.awk config/flickd.toml
#
# The opening comment becomes DESCRIPTION; each [section] a subsection; each key an item tagged
# with its default, described by the comment above it (keys that follow one comment share it).

# Text for a roff text line: backslashes escaped, a leading dot or quote kept as text, `code`
# in typographic quotes.
function text(s,    out, open) {
    gsub(/\\/, "\\e", s)
    out = ""; open = 0
    while (match(s, /`/)) {
        out = out substr(s, 1, RSTART - 1) (open ? "\\(cq" : "\\(oq")
        open = !open
        s = substr(s, RSTART + 1)
    }
    out = out s
    if (out ~ /^[.']/) out = "\\&" out
    return out
}

# One macro argument, quoted so spaces and commas stay inside it.
function argument(s) {
    gsub(/\\/, "\\e", s)
    gsub(/"/, "\\(dq", s)
    return "\"" s "\""
}

function flush_comment(    i) {
    for (i = 1; i <= ncomment; i++) print text(comment[i])
    ncomment = 0
}

# The keys read since the last comment, tagged, then the comment above them.
function flush_keys(    i) {
    for (i = 1; i <= nkeys; i++) print keys[i]
    for (i = 1; i <= ndesc; i++) print text(desc[i])
    nkeys = 0; ndesc = 0
}

BEGIN {
    if (date == "") date = "January 1, 1970"
    print ".\\\" flickd.toml(5), made by scripts/man.sh from config/flickd.toml: edit that file, not this page."
    print ".Dd " date
    print ".Dt FLICKD.TOML 5"
    print ".Os"
    print ".Sh NAME"
    print ".Nm flickd.toml"
    print ".Nd configuration of the flickd touch scrolling daemon"
    print ".Sh SYNOPSIS"
    print ".Pa /etc/flickd/flickd.toml"
    print ".Sh DESCRIPTION"
    section = ""; ncomment = 0; nkeys = 0; ndesc = 0; inlist = 0; header = 1
}

# The first line names the file; NAME says that already.
NR == 1 && /^# flickd configuration/ { next }

/^#/ {
    if (nkeys) flush_keys()
    line = $0
    sub(/^# ?/, "", line)
    comment[++ncomment] = line
    next
}

/^[ \t]*$/ {
    if (nkeys) flush_keys()
    # A blank line ends the opening comment's paragraph; inside sections comments run to their key.
    if (header && ncomment) { flush_comment(); print ".Pp" }
    next
}

/^\[[A-Za-z_]+\][ \t]*$/ {
    if (header) {
        flush_comment()
        print "Each key is shown below with its default."
        print ".Sh KEYS"
        header = 0
    }
    if (nkeys) flush_keys()
    if (inlist) print ".El"
    section = substr($0, 2, index($0, "]") - 2)
    print ".Ss " argument("[" section "]")
    print ".Bl -tag -width Ds"
    inlist = 1
    next
}

/^[A-Za-z_]+[ \t]*=/ {
    key = $0; sub(/[ \t]*=.*/, "", key)
    value = $0; sub(/^[^=]*=[ \t]*/, "", value); sub(/[ \t]+$/, "", value)
    if (!nkeys) {
        for (i = 1; i <= ncomment; i++) desc[i] = comment[i]
        ndesc = ncomment; ncomment = 0
    }
    keys[++nkeys] = ".It Cm " key " No = Li " argument(value)
    next
}

{
    printf "config-man.awk: %s:%d: not a comment, section or key: %s\n", FILENAME, FNR, $0 > "/dev/stderr"
    failed = 1
    exit 1
}

END {
    if (failed) exit 1
    if (nkeys) flush_keys()
    if (inlist) print ".El"
    print ".Sh FILES"
    print ".Bl -tag -width Ds"
    print ".It Pa /etc/flickd/flickd.toml"
    print "The file the service reads"
    print ".Pq Nm flickd Cm run Fl -config ."
    print "When it is absent, the built-in defaults apply."
    print ".It Pa /usr/share/doc/flickd/README.md"
    print "How to install, run and steer flickd."
    print ".El"
    print ".Sh SEE ALSO"
    print ".Xr flickctl 1 ,"
    print ".Xr flickd 8 ,"
    print ".Xr systemctl 1"
}
