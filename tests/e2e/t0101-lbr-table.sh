# The LBR model table against its specification, docs/lbr.md (the kernel's model
# switch restated): every model it lists, its depth and kind.
. "$(dirname "$0")/../lib.sh"
need_cmd python3
SPEC=$ROOT/docs/lbr.md

# "MODEL KIND DEPTH" for every model of the Intel table's rows
python3 - "$SPEC" >"$TMP/expected" <<'PY'
import re, sys
text = open(sys.argv[1]).read()
sec = text[text.index("## Intel: the kernel's model table"):text.index("## Intel: Architectural LBR")]
for line in sec.splitlines():
    if not line.startswith("| ") or line.startswith("| depth") or line.startswith("|---"):
        continue
    depth_col, _, models_col = [c.strip() for c in line.strip("|").split("|")]
    m = re.match(r"\*\*(\d+)\*\*", depth_col)
    if depth_col.startswith("Architectural"):
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
check_match "docs/lbr.md lists the models" '^0F legacy 4$' "$(cat "$TMP/expected")"
check_eq "docs/lbr.md: every model read" 80 "$(wc -l <"$TMP/expected")"
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
