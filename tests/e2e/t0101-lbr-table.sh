# The LBR model table against the fact sheet's copy of the kernel's model switch
# (../shared/docs/perf-facts.md §4.1): every model it lists, its depth and kind.
. "$(dirname "$0")/../lib.sh"
need_shared
FACTS=$SHARED/docs/perf-facts.md
[ -f "$FACTS" ] || { skip "lbr table" "$FACTS is absent"; exit 0; }

# "MODEL KIND DEPTH" for every model of the §4.1 table rows
python3 - "$FACTS" >"$TMP/expected" <<'PY'
import re, sys
text = open(sys.argv[1]).read()
sec = text[text.index("### 4.1"):text.index("### 4.2")]
for line in sec.splitlines():
    if not line.startswith("| ") or line.startswith("| init fn") or line.startswith("|---"):
        continue
    cols = [c.strip() for c in line.strip("|").split("|")]
    depth_col, models_col = cols[1], cols[2]
    m = re.match(r"\*\*(\d+)\*\*", depth_col)
    if "Architectural" in cols[0]:
        kind, depth = "arch", "null"
    elif m and m.group(1) == "0":
        kind, depth = "none", "0"
    elif m:
        kind, depth = "legacy", m.group(1)
    else:
        continue
    for model in re.findall(r"0x([0-9A-F]{2})", models_col):
        print(model, kind, depth)
PY
check_match "the fact sheet lists the models" '^0F legacy 4$' "$(cat "$TMP/expected")"
# stepping A: past the Bonnell erratum, which t0100 tests on its own
while read -r model _; do
	"$OCREC" info --json --cpu "GenuineIntel-6-$model-A" >"$TMP/$model.json" 2>&1
done <"$TMP/expected"
python3 - "$TMP" >"$TMP/actual" <<'PY'
import json, sys
for line in open(sys.argv[1] + "/expected"):
    model = line.split()[0]
    try:
        d = json.load(open("%s/%s.json" % (sys.argv[1], model)))
        print(model, d["lbr"]["kind"], json.dumps(d["lbr"]["depth"]))
    except ValueError:
        print(model, "(no JSON)")
PY
i=1
while read -r exp; do
	check_eq "model 0x${exp%% *}: ${exp#* }" "$exp" "$(sed -n "${i}p" "$TMP/actual")"
	i=$((i + 1))
done <"$TMP/expected"
