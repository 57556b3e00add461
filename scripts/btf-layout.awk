# SPDX-License-Identifier: GPL-2.0
#
# btf-layout.awk (used by scripts/gen-layout): reads "bpftool btf dump file F" (raw format) and prints "KEY OFFSET SIZE
# NAME" for each wanted member, "KEY" alone when it is missing.  Wanted
# members come in -v want="KEY:struct:name1,name2 ..." and per-CPU
# variables as "KEY:%percpu:var".  One pass, no regex on
# the hot lines: it runs under QEMU TCG when DKMS builds in a test guest.
function kv(s, k,    m) {
	if (match(s, " " k "=[0-9]+")) {
		m = substr(s, RSTART + length(k) + 2, RLENGTH - length(k) - 2)
		return m + 0
	}
	return -1
}
function qname(s) {
	if (match(s, /'[^']*'/))
		return substr(s, RSTART + 1, RLENGTH - 2)
	return ""
}
function size_of(id, depth,    k) {
	if (depth > 32 || !(id in kind))
		return 0
	k = kind[id]
	if (k == "TYPEDEF" || k == "VOLATILE" || k == "CONST" || k == "RESTRICT" || k == "TYPE_TAG")
		return size_of(ref[id], depth + 1)
	if (k == "PTR")
		return 8
	if (k == "ARRAY")
		return nelems[id] * size_of(ref[id], depth + 1)
	return tsize[id] > 0 ? tsize[id] : 0
}
BEGIN {
	n = split(want, w, " ")
	for (i = 1; i <= n; i++) {
		split(w[i], f, ":")
		key[i] = f[1]; wstruct[i] = f[2]; wnames[i] = f[3]
		if (f[2] != "%percpu")
			structs[f[2]] = 1
	}
	cur = ""
}
/^\t/ && cur == "" { next }
$2 == "FUNC" || $2 == "FUNC_PROTO" || $2 == "VAR" || $2 == "DECL_TAG" || $2 == "FWD" { cur = ""; next }
/^\[/ {
	id = substr($1, 2, length($1) - 2) + 0
	kind[id] = $2
	# key=value fields follow the quoted name, which may hold spaces.
	for (i = NF; i > 2 && index($i, "=") > 0; i--) {
		eq = index($i, "=")
		k = substr($i, 1, eq - 1)
		if (k == "size")
			tsize[id] = substr($i, eq + 1) + 0
		else if (k == "type_id")
			ref[id] = substr($i, eq + 1) + 0
		else if (k == "nr_elems")
			nelems[id] = substr($i, eq + 1) + 0
	}
	cur = ""
	if ($2 == "STRUCT" || $2 == "UNION" || $2 == "DATASEC") {
		nm = qname($0)
		if ($2 == "STRUCT" && (nm in structs) && !(nm in seen)) {
			seen[nm] = 1
			cur = nm
		} else if ($2 != "DATASEC" && nm == "(anon)") {
			# Members of anonymous unions and structs are the
			# wanted struct's own (rq.curr sits in one in 7.x).
			cur = "@" id
		} else if ($2 == "DATASEC" && nm == ".data..percpu") {
			cur = "%percpu"
		}
	}
	next
}
/^\t/ && cur == "%percpu" {
	v = qname($0)
	if (!(v in pcoff)) {
		pcoff[v] = kv($0, "offset")
		pcsize[v] = kv($0, "size")
	}
	next
}
/^\t/ && cur != "" {
	m = qname($0)
	if (m == "(anon)") {
		nanon[cur]++
		anontype[cur, nanon[cur]] = kv($0, "type_id")
		anonoff[cur, nanon[cur]] = kv($0, "bits_offset")
	} else if (!((cur, m) in mtype)) {
		mtype[cur, m] = kv($0, "type_id")
		moff[cur, m] = kv($0, "bits_offset")
	}
	next
}
# find(C, M): whether container C (a wanted struct, or "@ID" of an anonymous
# one) has member M, directly or inside its anonymous members; sets
# found_off (bits, from C's start) and found_type.
function find(c, m, depth,    i, t) {
	if ((c, m) in mtype) {
		found_off = moff[c, m]
		found_type = mtype[c, m]
		return 1
	}
	if (depth > 8)
		return 0
	for (i = 1; i <= nanon[c]; i++) {
		t = anontype[c, i]
		while ((t in kind) && kind[t] != "STRUCT" && kind[t] != "UNION" && (t in ref))
			t = ref[t]
		if (find("@" t, m, depth + 1)) {
			found_off += anonoff[c, i]
			return 1
		}
	}
	return 0
}
END {
	for (i = 1; i <= n; i++) {
		out = key[i]
		c = split(wnames[i], alt, ",")
		for (j = 1; j <= c; j++) {
			if (wstruct[i] == "%percpu") {
				if (alt[j] in pcoff) {
					out = out " " pcoff[alt[j]] " " pcsize[alt[j]] " " alt[j]
					break
				}
			} else if (find(wstruct[i], alt[j], 0)) {
				out = out " " int(found_off / 8) " " \
				      size_of(found_type, 0) " " alt[j]
				break
			}
		}
		print out
	}
}
