# Unit tests of the built-in rules, run by policy_test.go inside go test
# (and by `bwpolicy test policy/`).
package bwpolicy.rules_test

import data.bwpolicy.rules

base_facts := {
	"home": "/home/u",
	"cwd": {"path": "/home/u/proj", "real": "/home/u/proj", "requested": "/home/u/proj", "explicit": true, "exists": true, "run_dir": "/home/u/proj", "fell_back": "", "hidden_by": ""},
	"hidden": [
		{"entry": "/home/u/.ssh", "path": "/home/u/.ssh", "kind": "dir", "symlink": false, "why": "S5"},
		{"entry": "/home/u/.aws", "path": "/home/u/dotfiles/aws", "kind": "dir", "symlink": true, "why": "S5"},
		{"entry": "/home/u/.kube", "path": "/home/u/.kube", "kind": "absent", "symlink": false, "why": "S5"},
	],
	"hidden_present": [0, 1],
	"masks": [
		{"path": "/home/u/.ssh", "entry": "/home/u/.ssh", "entries": ["/home/u/.ssh"], "kind": "dir", "why": "S5", "source": "home-entry", "covered_by": ""},
		{"path": "/home/u/dotfiles/aws", "entry": "/home/u/.aws", "entries": ["/home/u/.aws"], "kind": "dir", "why": "S5", "source": "home-entry", "covered_by": ""},
	],
	"exceptions": [],
	"binds": [],
	"home_mode": "auto",
	"profile_home": {"path": "/home/u/.hermes/home", "real": "/home/u/.hermes/home", "kind": "absent", "has_link": false},
	"hard_as": 18446744073709551615, "hard_cpu": 18446744073709551615, "hard_nproc": 1000,
	"nproc_userns": true,
	"bwrap": {"path": "/usr/bin/bwrap", "version": "0.8.0", "options": {"--disable-userns": true, "--size": true}},
	"arch": "x86_64", "landlock_abi": 6,
}

# base_hidden_roots: the present hidden paths of base_facts, entries and
# targets (its masks; what the facts stage's relations are computed
# against).
base_hidden_roots := {"/home/u/.ssh", "/home/u/.aws", "/home/u/dotfiles/aws"}

base_profile := {
	"name": "workspace", "cwd_writable": true, "network": "none", "custom": false,
	"die_with_parent": true, "new_session": true, "hide_hermes_home": true, "pin_parents": true,
	"root": "read-only", "dev": "minimal", "proc": "private", "tmp": "fresh-tmpfs",
	"run_user": "empty-tmpfs", "docker_socket": "empty-file",
	"namespaces": {"user": true, "ipc": true, "pid": true, "uts": true, "cgroup": true},
	"hidden_home": {h: true | some h in rules.floor_hidden},
	"unset_env": {"SSH_AUTH_SOCK": true, "GPG_AGENT_INFO": true, "DBUS_SESSION_BUS_ADDRESS": true},
}

base_settings := {"memory_mb": 256, "cpu_seconds": 30, "max_procs": 256, "tmp_mb": 256}

bind(i, src, dest, ro, kind) := {
	"index": i, "src": src, "dest": dest, "readonly": ro, "src_abs": true, "dest_abs": true,
	"src_real": src, "src_kind": kind, "src_has_link": false,
	"dest_kind": kind, "dest_real": dest, "dest_has_link": false,
	"src_under_hidden": sort([r | some r in base_hidden_roots; rules.within(src, r)]),
	"src_contains_hidden": sort([r | some r in base_hidden_roots; r != src; rules.within(r, src)]),
	"dest_covers": [], "dest_duplicate_of": -1,
}

with_binds(bs) := object.union(base_facts, {"binds": bs})

rules_for(facts) := {v.rule | some v in rules.deny with input as {"facts": facts, "profile": base_profile, "settings": base_settings}} | {v.rule | some v in rules.warn with input as {"facts": facts, "profile": base_profile, "settings": base_settings}}

test_within if {
	rules.within("/a/b", "/a")
	rules.within("/a", "/a")
	rules.within("/anything", "/")
	not rules.within("/ab", "/a")
}

test_dirname if {
	rules.dirname("/a/b/c") == "/a/b"
	rules.dirname("/a") == "/"
}

test_clean_settings_no_rules if {
	count(rules_for(base_facts)) == 0
}

test_r1_bind_under_symlinked_hidden_target if {
	"R1" in rules_for(with_binds([bind(0, "/home/u/dotfiles/aws/creds", "/home/u/dotfiles/aws/creds", true, "file")]))
}

test_r1_not_for_absent_hidden if {
	not "R1" in rules_for(with_binds([bind(0, "/home/u/.kube", "/home/u/.kube", true, "dir")]))
}

test_r2_home_elsewhere if {
	"R2" in rules_for(with_binds([bind(0, "/home/u", "/srv/u", true, "dir")]))
}

test_r11_home_same_place_is_allowed if {
	r := rules_for(with_binds([bind(0, "/home/u", "/home/u", true, "dir")]))
	not "R2" in r
	not "R1" in r
}

test_r3_nested_rw_in_cwd if {
	"R3" in rules_for(with_binds([bind(0, "/home/u/proj/a/b", "/home/u/proj/a/b", false, "dir")]))
}

test_r3_direct_child_allowed if {
	not "R3" in rules_for(with_binds([bind(0, "/home/u/proj/a", "/home/u/proj/a", false, "dir")]))
}

test_r3_direct_child_elsewhere_refused if {
	"R3" in rules_for(with_binds([bind(0, "/home/u/proj/a", "/srv/a", false, "dir")]))
}

test_r3_symlink_on_the_way_refused if {
	b := object.union(bind(0, "/home/u/proj/a", "/home/u/proj/a", false, "dir"), {"src_has_link": true})
	"R3" in rules_for(with_binds([b]))
}

test_r3_not_when_cwd_read_only if {
	facts := with_binds([bind(0, "/home/u/proj/a/b", "/home/u/proj/a/b", false, "dir")])
	denied := {v.rule | some v in rules.deny with input as {"facts": facts, "profile": object.union(base_profile, {"cwd_writable": false}), "settings": base_settings}}
	not "R3" in denied
}

test_r4_missing_dest_outside_tmp if {
	b := object.union(bind(0, "/data", "/opt/data", true, "dir"), {"dest_kind": "absent"})
	"R4" in rules_for(with_binds([b]))
}

test_r4_missing_dest_under_tmp_ok if {
	b := object.union(bind(0, "/data", "/tmp/data", true, "dir"), {"dest_kind": "absent"})
	not "R4" in rules_for(with_binds([b]))
}

test_r5_root_cwd if {
	facts := object.union(base_facts, {"cwd": object.union(base_facts.cwd, {"path": "/", "real": "/"})})
	"R5" in rules_for(facts)
}

test_r7_home_cwd if {
	facts := object.union(base_facts, {"cwd": object.union(base_facts.cwd, {"path": "/home/u", "real": "/home/u"})})
	"R7" in rules_for(facts)
}

test_r7_above_home if {
	facts := object.union(base_facts, {"cwd": object.union(base_facts.cwd, {"path": "/home", "real": "/home"})})
	"R7" in rules_for(facts)
}

test_r8_missing_profile_home if {
	"R8" in rules_for(object.union(base_facts, {"home_mode": "profile"}))
}

test_r8_plain_dir_ok if {
	facts := object.union(base_facts, {"home_mode": "profile", "profile_home": object.union(base_facts.profile_home, {"kind": "dir"})})
	not "R8" in rules_for(facts)
}

test_r10_dest_symlink if {
	b := object.union(bind(0, "/data", "/opt/link", true, "dir"), {"dest_has_link": true, "dest_kind": "symlink"})
	"R10" in rules_for(with_binds([b]))
}

test_r12_clamped if {
	r := {v.rule | some v in rules.warn with input as {"facts": base_facts, "profile": base_profile, "settings": object.union(base_settings, {"max_procs": 5000})}}
	"R12" in r
}

test_r12_tmp_mb_zero_warned if {
	ws := {v.msg | some v in rules.warn with input as {"facts": base_facts, "profile": base_profile, "settings": object.union(base_settings, {"tmp_mb": 0})}}
	some m in ws
	contains(m, "tmp_mb is 0")
	ok := {v.msg | some v in rules.warn with input as {"facts": base_facts, "profile": base_profile, "settings": base_settings}}
	not any_contains(ok, "tmp_mb")
}

test_r12_tmp_mb_negative if {
	r := {v.rule | some v in rules.deny with input as {"facts": base_facts, "profile": base_profile, "settings": object.union(base_settings, {"tmp_mb": -1})}}
	"R12" in r
}

any_contains(set, s) if {
	some m in set
	contains(m, s)
}

test_r13_custom_profile_sharing_network if {
	p := object.union(base_profile, {"name": "mine", "network": "host", "custom": true})
	r := {v.rule | some v in rules.deny with input as {"facts": base_facts, "profile": p, "settings": base_settings}}
	"R13" in r
}

test_r13_floor_field_dropped if {
	p := object.union(base_profile, {"root": "read-write"})
	r := {v.rule | some v in rules.deny with input as {"facts": base_facts, "profile": p, "settings": base_settings}}
	"R13" in r
}

test_r13_unhidden_ssh if {
	p := object.union(object.remove(base_profile, ["hidden_home"]), {"hidden_home": object.remove(base_profile.hidden_home, [".ssh"])})
	r := {v.rule | some v in rules.deny with input as {"facts": base_facts, "profile": p, "settings": base_settings}}
	"R13" in r
}

# --- Beyond the seed: H3 (cloud metadata), H7, H9 ---

warnings_for(facts, profile, settings) := {v.rule: v.msg |
	some v in rules.warn with input as {"facts": facts, "profile": profile, "settings": settings}
}

net_profile := object.union(base_profile, {"name": "network", "network": "host"})

cloud_facts := object.union(base_facts, {"cloud": "Amazon EC2", "landlock_abi": 6})

test_h3_cloud_metadata_warned_under_network if {
	contains(warnings_for(cloud_facts, net_profile, base_settings).H3, "169.254.169.254")
}

test_h3_cloud_metadata_closed_by_allowlist if {
	s := object.union(base_settings, {"network": {"tcp_connect": [443]}})
	not warnings_for(cloud_facts, net_profile, s).H3
}

test_h3_cloud_metadata_open_when_80_allowed if {
	s := object.union(base_settings, {"network": {"tcp_connect": [443, 80]}})
	warnings_for(cloud_facts, net_profile, s).H3
}

test_h3_cloud_metadata_open_without_landlock_net if {
	s := object.union(base_settings, {"network": {"tcp_connect": [443]}})
	some v in rules.warn with input as {"facts": object.union(cloud_facts, {"landlock_abi": 3}), "profile": net_profile, "settings": s}
	contains(v.msg, "169.254.169.254")
}

test_h3_no_cloud_no_warning if {
	not warnings_for(base_facts, net_profile, base_settings).H3
}

test_h3_cloud_without_network_no_warning if {
	not warnings_for(cloud_facts, base_profile, base_settings).H3
}

test_h7_skip_warned if {
	f := object.union(base_facts, {"env_skips": [{"var": "DOCKER_CONFIG", "path": "/home/u", "reason": "is the home directory or above it"}]})
	contains(warnings_for(f, base_profile, base_settings).H7, "$DOCKER_CONFIG names \"/home/u\"")
}

test_h7_path_in_scratch_refused if {
	f := object.union(base_facts, {
		"scratch": {"path": "/home/u/.hermes/cache/scratch", "real": "/home/u/.hermes/cache/scratch", "kind": "dir", "has_link": false},
		"hidden": [{"entry": "/home/u/.hermes/cache/scratch/a.sock", "path": "/home/u/.hermes/cache/scratch/a.sock", "kind": "socket", "symlink": false, "why": "H7", "var": "SSH_AUTH_SOCK"}],
		"hidden_present": [0],
		"exceptions": [{"path": "/home/u/.hermes/cache/scratch", "source": "scratch", "writable": true}],
	})
	some v in rules.deny with input as {"facts": f, "profile": base_profile, "settings": base_settings}
	v.rule == "S6"
	startswith(v.msg, "$SSH_AUTH_SOCK names")
	v.host
}

test_h9_symlinked_entry_warned if {
	f := object.union(base_facts, {"protected": [{"name": ".idea", "root": "/home/u/proj", "bind_index": -1, "path": "/home/u/proj/.idea", "kind": "dir", "symlink": true}]})
	warnings_for(f, base_profile, base_settings).H9
}

test_h9_plain_entry_not_warned if {
	f := object.union(base_facts, {"protected": [{"name": ".git/config", "root": "/home/u/proj", "bind_index": -1, "path": "/home/u/proj/.git/config", "kind": "file", "symlink": false}]})
	not warnings_for(f, base_profile, base_settings).H9
}

test_h9_symlinked_but_allowed_not_warned if {
	f := object.union(base_facts, {"protected": [{"name": ".idea", "root": "/home/u/proj", "bind_index": -1, "path": "/home/u/proj/.idea", "kind": "dir", "symlink": true, "allowed": true}]})
	not warnings_for(f, base_profile, base_settings).H9
}

# --- What this machine and bwpolicy can do (host.rego) ---

host_msgs(facts, settings) := {sprintf("%s %s", [v.rule, v.msg]) |
	some v in rules.warn with input as {"facts": facts, "profile": base_profile, "settings": settings, "known": known}
	v.host
}

known := {
	"protect_names": [".git/config", ".vscode", "core.hooksPath"],
	"seccomp_groups": [
		{"name": "ptrace", "relax_with": [], "relax_reason": "x"},
		{"name": "clone3", "relax_with": ["namespaces"], "relax_reason": "clone3 can create namespaces"},
		{"name": "namespaces", "relax_with": [], "relax_reason": "x"},
	],
}

test_host_clean_machine_no_host_warning if {
	count(host_msgs(base_facts, base_settings)) == 0
}

test_s10_no_bwrap if {
	msgs := host_msgs(object.union(object.remove(base_facts, ["bwrap"]), {"bwrap": {"path": "", "options": {}}}), base_settings)
	some m in msgs
	startswith(m, "S10 bwrap was not found")
	not any_prefix(msgs, "H1 ")
	not any_prefix(msgs, "S3 ")
}

any_prefix(set, p) if {
	some m in set
	startswith(m, p)
}

test_h1_s3_old_bwrap if {
	msgs := host_msgs(object.union(object.remove(base_facts, ["bwrap"]), {"bwrap": {"path": "/usr/bin/bwrap", "options": {}}}), base_settings)
	any_prefix(msgs, "H1 this bwrap lacks --disable-userns")
	any_prefix(msgs, "S3 this bwrap lacks --size")
}

test_h2_no_arch if {
	any_prefix(host_msgs(object.union(base_facts, {"arch": ""}), base_settings), "H2 no seccomp filter")
}

test_h3_old_landlock_empty_allowlist if {
	s := object.union(base_settings, {"network": {"tcp_bind": []}})
	any_prefix(host_msgs(object.union(base_facts, {"landlock_abi": 3}), s), "H3 this kernel's Landlock ABI is 3 (< 4)")
	not any_prefix(host_msgs(object.union(base_facts, {"landlock_abi": 3}), base_settings), "H3 this kernel's Landlock ABI is 3 (< 4)")
}

decisions(kind, settings) := {sprintf("%s %v %s", [v.rule, v.path, v.msg]) |
	some v in rules[kind] with input as {"facts": base_facts, "profile": base_profile, "settings": settings, "known": known}
	v.rule in {"H2", "H9"}
}

test_h9_protect_allow_names if {
	s := object.union(base_settings, {"protect": {"allow": [".vscode", ".vscod"]}})
	decisions("deny", s) == {`H9 ["protect", "allow", 1] ".vscod" is not a protected entry (known: .git/config, .vscode, core.hooksPath)`}
	decisions("warn", s) == {`H9 ["protect", "allow", 0] commands may change .vscode, which runs outside the sandbox later`}
}

test_h2_seccomp_allow_names if {
	bad := object.union(base_settings, {"seccomp": {"allow": ["clone3", "everything"]}})
	count(decisions("deny", bad)) == 2
	count(decisions("warn", bad)) == 0
	good := object.union(base_settings, {"seccomp": {"allow": ["clone3", "namespaces"]}})
	count(decisions("deny", good)) == 0
	count(decisions("warn", good)) == 2
}

# A bind source this user cannot even lstat (another user's directory
# denies search) cannot be bound: R9, like a missing one.
test_r9_denied_source if {
	"R9" in rules_for(with_binds([bind(0, "/root/data", "/root/data", true, "denied")]))
}

test_r9_not_for_existing_source if {
	not "R9" in rules_for(with_binds([bind(0, "/data", "/data", true, "dir")]))
}

# A bind dest this user cannot reach: bwrap could not mount there (R4).
test_r4_denied_dest if {
	b := object.union(bind(0, "/data", "/root/data", true, "dir"), {"dest_kind": "denied"})
	"R4" in rules_for(with_binds([b]))
}

# H10: the bind-count warning starts past many_home_binds mounted
# entries (facts.HomeLayout.Mounts, which leaves symlink entries out:
# TestHomeLayoutMounts).
bind_count_warnings(mounts) := [v | some v in rules.warn with input as {"facts": object.union(base_facts, {"home_layout": {"mode": "allowlist", "home": "/home/u", "entries": [], "mounts": mounts}}), "profile": base_profile, "settings": base_settings}; contains(v.msg, "grows with the square")]

test_h10_bind_count_boundary if {
	count(bind_count_warnings(100)) == 0
	count(bind_count_warnings(101)) == 1
}

# H4: a hide entry holding a shell expansion bwpolicy does not make is
# refused; the home's spellings (canonical "~/" by the time the rules
# see them), globs and a bracketed literal $ are not.
hide_rules(h) := {v.rule | some v in rules.deny with input as {"facts": base_facts, "profile": base_profile, "settings": object.union(base_settings, {"hide": [h]})}}

test_hide_shell_expansion_refused if {
	every h in ["~root", "~root/.ssh", "~bob/", "$XDG_CONFIG_HOME/gh", "${XDG_CONFIG_HOME}/gh", "${HOME:-/home/u}/.ssh", "$HOMEDIR", "secrets/$ENV/key.pem", "$_x"] {
		"H4" in hide_rules(h)
	}
}

test_hide_without_shell_expansion_accepted if {
	every h in ["~/.config/gh", "**/*.pem", "secrets/", "[$]HOME", "a$", "cost$1"] {
		not "H4" in hide_rules(h)
	}
}
