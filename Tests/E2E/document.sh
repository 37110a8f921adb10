# Tests/E2E/document.sh — scenario 15, sourced by scenarios.sh (which runs it last, or alone when
# given `15`): a PDF menu as content, drawn by flickd-render (docs/documents.md).
#
# scripts/e2e.sh made the menu on the host (menu.py: 4 pages of 504 x 376 pt, each its own
# colours, text and shapes) and rendered each page with poppler's pdftocairo at 144 dpi (2 px a
# point: the paper's size in a 1024x768 cell inset by the 16 px gap) into OUT/menu-N.ppm. flickd
# shows the PDF with paging on, pages side by side; its helper must be found beside it (here
# $BIN, where flickd runs from). `status` must name the document and its 4 pages; every frame
# read back from vkms is compared with poppler's page at the offset `status` reports
# (docframe.py: within a stated tolerance, and unlike every other page): the first page, then
# the page a flick on the touchscreen turns to, then page 3 after `flickctl page 3`.

# docpage NAME SECONDS OFFSET: grabs the frame into OUT/NAME.png until docframe.py finds it is
# the menu's page at OFFSET, for at most SECONDS (tiles come as the helper draws them).
docpage() {
  local name=$1 offset=$3 rc tries=0
  within "$2"
  while :; do
    tries=$((tries + 1))
    grab "$name" frame --ppm "$RUN/$name.ppm" >"$RUN/grab.out"
    DOCFRAME=$(/usr/bin/python3 "$RUN/docframe.py" --offset "$offset" --screen 1024x768 --gap 16 \
      --background '#203040' --points 504x376 "$RUN/$name.ppm" "$OUT"/menu-[1-4].ppm 2>&1)
    rc=$?
    { [ $rc = 0 ] || ! in_time; } && break
    sleep 0.5
  done
  cat "$RUN/grab.out"
  sed 's/^/    /' <<<"$DOCFRAME"
  [ $tries = 1 ] || say "  ($tries grabs)"
  return $rc
}

document_at_rest() {
  local s
  s=$(wait_rest 30) || { fail "15: still moving: $s"; return 1; }
  DOC_PAGE=$(jq -r .page <<<"$s")
  DOC_AT=$(offset_of "$s")
}

document_menu() {
  local s pid exe
  within 120
  while in_time; do
    kill -0 $FLICKD 2>/dev/null || { fail "15: flickd exited at start: $(tail -n 3 "$DLOG")"; return 1; }
    [ "$(ctl status 2>/dev/null | jq -r '.status.document.state // empty')" = showing ] && break
    sleep 0.5
  done
  s=$(status)
  say "  status: $(jq -c '{content, contentSize, page, pageCount, document}' <<<"$s")"
  jq -e '.document.state == "showing"' <<<"$s" >/dev/null || { fail "15: the document is not shown within 120 s: $(jq -c .document <<<"$s")"; return 1; }
  jq -e '.document.files == ["menu.pdf"] and .document.pages == 4 and .pageCount == 4 and .page == 0
         and .contentSize == [4096, 768]' <<<"$s" >/dev/null \
    || { fail "15: status does not say menu.pdf, 4 pages side by side, page 0: $(jq -c . <<<"$s")"; return 1; }
  pid=$(jq -r .document.pid <<<"$s")
  exe=$(readlink "/proc/$pid/exe")
  [ "$exe" = "$BIN/flickd-render" ] || { fail "15: the helper $pid runs '$exe', not $BIN/flickd-render beside flickd"; return 1; }
  pass "15: flickd-render ($exe, pid $pid) shows menu.pdf; status: 4 pages, page 0, 4096x768"
  DOC_PID=$pid

  docpage 15-page0 60 0,0 || { fail "15: the first frame is not the menu's page 0 as poppler draws it"; return 1; }
  pass "15: the first frame read back from vkms is page 0 as poppler draws it"

  # A flick to the left: paging turns one page, and the page-change event says so.
  mark
  touch_ flick 800 384 300 384 160 >/dev/null || return 1
  document_at_rest || return 1
  # The flick's gesture event, as scenario 3 reads a flick's.
  within 10
  until since | grep -q -F '"gesture":"page-change"' || ! in_time; do sleep 0.3; done
  since | grep -q -F '"gesture":"page-change"' || { fail "15: no page-change gesture after the flick: $(since | head -c 600)"; return 1; }
  is 'p >= 1 && x == 1024 * p && y == 0' p="$DOC_PAGE" x="${DOC_AT%,*}" y="${DOC_AT#*,}" \
    || { fail "15: after the flick status says page $DOC_PAGE at offset $DOC_AT"; return 1; }
  docpage 15-flick 30 "$DOC_AT" || { fail "15: after the flick the frame is not page $DOC_PAGE at $DOC_AT"; return 1; }
  pass "15: a flick turned to page $DOC_PAGE (offset $DOC_AT); the frame read back is that page, not page 0"

  ctl page 3 >/dev/null || { fail "15: flickctl page 3 was refused"; return 1; }
  document_at_rest || return 1
  [ "$DOC_PAGE" = 3 ] && [ "$DOC_AT" = 3072,0 ] || { fail "15: after 'page 3' status says page $DOC_PAGE at $DOC_AT"; return 1; }
  docpage 15-page3 30 "$DOC_AT" || { fail "15: after 'page 3' the frame is not page 3 at $DOC_AT"; return 1; }
  pass "15: flickctl page 3: status page 3 at 3072,0; the frame read back is page 3 as poppler draws it"
  # The same helper served the whole scenario: never killed as hung, never restarted.
  s=$(status)
  jq -e --argjson pid "$pid" '.document.state == "showing" and .document.pid == $pid and .document.restarts == 0' <<<"$s" >/dev/null \
    || { fail "15: the helper did not serve the whole scenario: $(jq -c .document <<<"$s")"; return 1; }
}

document_scenario() {
  say "15. a PDF menu drawn by flickd-render: status, the first page, a flick, flickctl page 3; read back from vkms"
  DOCCONF=$RUN/document.toml
  DLOG=$RUN/document.log
  cp "$(dirname "${BASH_SOURCE[0]}")/docframe.py" "$RUN/"
  cat >"$DOCCONF" <<EOF
[scroll]
paging = true
[display]
background = "#203040"
[content]
path = "$OUT/menu.pdf"
page_direction = "horizontal"
page_gap_px = 16
# Under emulation a first tile (poppler opening the page, fonts and all) took over the default
# 1000 ms, and flickd killed the helper as hung: the machine is slow, not the helper.
provider_timeout_ms = 15000
[control]
socket = "$SOCK"
[state]
path = "$RUN/document-state.json"
EOF
  keep                                # earlier flickds' events are kept; these are new ones
  EVENTS=$RUN/document-events.jsonl
  : >"$EVENTS"
  "$BIN/flickd" run --config "$DOCCONF" --display auto --input auto >"$DLOG" 2>&1 &
  FLICKD=$!
  within 30
  while in_time && ! [ -S "$SOCK" ]; do sleep 0.2; done
  ctl subscribe >"$EVENTS" 2>/dev/null &
  local sub=$! ok=yes rc
  DOC_PID=
  document_menu || { ok=no; say "this flickd's log:"; sed 's/^/    /' "$DLOG" | tail -n 30; }
  kill $sub 2>/dev/null
  kill -TERM $FLICKD 2>/dev/null
  wait $FLICKD
  rc=$?
  cp "$DLOG" "$DOCCONF" "$EVENTS" "$OUT/" 2>/dev/null
  [ $rc = 0 ] || { fail "15: flickd exited $rc on SIGTERM"; ok=no; }
  # Gone, or a zombie for the machine's init to reap: not running.
  alive() { [ -r "/proc/$1/stat" ] && ! grep -q ') Z ' "/proc/$1/stat" 2>/dev/null; }
  if [ -n "$DOC_PID" ]; then
    within 3
    while in_time && alive "$DOC_PID"; do sleep 0.2; done
    alive "$DOC_PID" && { fail "15: the helper $DOC_PID outlived flickd"; ok=no; }
  fi
  if refused=$(grep -E "frame not shown|overlay planes refused" "$DLOG"); then
    fail "15: the display refused frames: $(head -n1 <<<"$refused")"; ok=no
  fi
  [ $ok = yes ] && pass "15: flickd stopped with its helper, no frame refused"
}
