# R13: the floor. Whatever a profile says, the compiled sandbox keeps
# every S property. The CUE definition #Profile already fixes them; this
# rule checks the unified profile again, so a definition edited by
# mistake cannot weaken a sandbox silently.
package bwpolicy.rules

floor_true := ["die_with_parent", "new_session", "hide_hermes_home", "pin_parents"]

floor_values := {
	"root": "read-only", "dev": "minimal", "proc": "private", "tmp": "fresh-tmpfs",
	"run_user": "empty-tmpfs", "docker_socket": "empty-file",
}

floor_namespaces := ["user", "ipc", "pid", "uts", "cgroup"]

floor_hidden := [".ssh", ".aws", ".gnupg", ".gpg", ".config/gcloud", ".azure", ".docker", ".kube", ".npmrc", ".pypirc", ".netrc", ".env"]

floor_env := ["SSH_AUTH_SOCK", "GPG_AGENT_INFO", "DBUS_SESSION_BUS_ADDRESS"]

floor(msg, field) := {"rule": "R13", "msg": msg, "path": [field], "in": "profile"}

# METADATA
# title: "The floor: no profile may drop a property every sandbox has (S1–S11)."
# description: "Custom profiles unify with the shared #Profile definition and are checked again by the floor rules: they cannot share the host network, unhide a hidden path, make / writable, or keep agent sockets. Remove the offending field from the profile."
# custom:
#   id: R13
#   name: Floor
#   level: error
#   security: true
deny contains floor(sprintf("profile %q shares the host network: only the built-in network profile may (S2)", [input.profile.name]), "network") if {
	input.profile.network == "host"
	input.profile.name != "network"
}

deny contains floor(sprintf("profile %q shares the host network but is not the built-in one (S2)", [input.profile.name]), "network") if {
	input.profile.network == "host"
	input.profile.custom
}

deny contains floor(sprintf("profile %q sets %s to false (S2–S7)", [input.profile.name, f]), f) if {
	some f in floor_true
	not input.profile[f] == true
}

deny contains floor(sprintf("profile %q sets %s to %v, the floor is %v", [input.profile.name, f, object.get(input.profile, f, null), want]), f) if {
	some f, want in floor_values
	not input.profile[f] == want
}

deny contains floor(sprintf("profile %q does not unshare the %s namespace (S2)", [input.profile.name, ns]), "namespaces") if {
	some ns in floor_namespaces
	not input.profile.namespaces[ns] == true
}

deny contains floor(sprintf("profile %q does not hide ~/%s (S5)", [input.profile.name, h]), "hidden_home") if {
	some h in floor_hidden
	not input.profile.hidden_home[h] == true
}

deny contains floor(sprintf("profile %q keeps %s in the environment (S4)", [input.profile.name, e]), "unset_env") if {
	some e in floor_env
	not input.profile.unset_env[e] == true
}
