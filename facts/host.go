package facts

import (
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/bwpolicy/bwpolicy/hazard/secrets"
	"golang.org/x/sys/unix"

	"github.com/bwpolicy/bwpolicy/runtime/hostprobe"
	"github.com/bwpolicy/bwpolicy/runtime/invocation"
	"github.com/bwpolicy/bwpolicy/seccomp"
)

// CAVars are the environment variables that may name a CA bundle (S8).
var CAVars = []string{"SSL_CERT_FILE", "SSL_CERT_DIR", "HERMES_CA_BUNDLE", "REQUESTS_CA_BUNDLE",
	"CURL_CA_BUNDLE", "NODE_EXTRA_CA_CERTS", "GIT_SSL_CAINFO", "PIP_CERT"}

// DockerSockets are the docker socket paths replaced by an empty file (S4).
var DockerSockets = []string{"/run/docker.sock", "/var/run/docker.sock"}

// PrivilegedSockets are host sockets that hand out power over the
// machine to whoever can connect (H8): the system D-Bus (systemd,
// logind, polkit-authorised actions such as reboot, udisks mounts,
// PackageKit installs for the active session), and the daemons that run
// containers or virtual machines (membership of their group is root).
// A read-only bind does not stop connect(), so each is replaced by an
// empty file like the docker socket. /var/run paths resolve to /run.
var PrivilegedSockets = []string{
	"/run/dbus/system_bus_socket",
	"/var/run/dbus/system_bus_socket",
	"/run/systemd/private",
	"/run/containerd/containerd.sock",
	"/run/podman/podman.sock",
	"/run/crio/crio.sock",
	"/run/libvirt/libvirt-sock",
	"/run/libvirt/virtqemud-sock",
	"/run/libvirt/virtproxyd-sock",
	"/var/lib/lxd/unix.socket",
	"/var/snap/lxd/common/lxd/unix.socket",
	"/var/lib/incus/unix.socket",
	"/run/snapd.socket",
	"/run/snapd-snap.socket",
}

// Unlimited is an inherited hard limit that is RLIM_INFINITY (Host.HardAS,
// HardCPU, HardNProc).
const Unlimited = ^uint64(0)

// Host is everything the compiler reads of the machine, gathered once.
type Host struct {
	FS FS `json:"-"`
	// scans caches the repository scans of H9 (nestedGitDirs) by
	// directory: read once per Host, like the rest of its facts, so
	// `check` of many files in one directory lists it once.
	scans sync.Map
	// UID is the real user id.
	UID int `json:"uid"`
	// Home is $HOME; when HOME is unset, empty, relative or "/", the
	// user's home in the password database (PasswdHome), as a login
	// shell would set it (HomeFromPasswd).
	Home string `json:"home"`
	// PasswdHome is the user's home in the password database (getpwuid),
	// "" when unknown. When HOME names another directory, the
	// credentials the user keeps there are hidden as well (passwdHome).
	PasswdHome string `json:"passwd_home,omitempty"`
	// HomeFromPasswd says that Home was taken from PasswdHome.
	HomeFromPasswd bool `json:"home_from_passwd,omitempty"`
	// HermesHome is $HERMES_HOME, or Home/.hermes when unset.
	HermesHome string `json:"hermes_home"`
	// ProcessCwd is the directory the process was started in.
	ProcessCwd string `json:"process_cwd"`
	// Env holds the values of the variables of EnvVars that are set:
	// read them with Getenv.
	Env map[string]string `json:"env"`
	// EnvNames lists the names (never the values) of the environment
	// variables, sorted, so explain can say which the env policy removes.
	EnvNames []string `json:"env_names"`
	// EnvValueKinds names, by variable, the kind of credential its value
	// looks like (secrets.SecretValue), so explain can say what the
	// runtime strips by value; never the value.
	EnvValueKinds map[string]string `json:"env_value_kinds,omitempty"`
	// Bwrap is the bwrap found (Path empty when none).
	Bwrap hostprobe.BwrapInfo `json:"bwrap"`
	// Kernel is the kernel release (uname -r).
	Kernel string `json:"kernel"`
	// HardAS, HardCPU and HardNProc are the inherited hard limits.
	HardAS    uint64 `json:"hard_as"`
	HardCPU   uint64 `json:"hard_cpu"`
	HardNProc uint64 `json:"hard_nproc"`
	// FileMax is the host's file table size (/proc/sys/fs/file-max; 0:
	// unknown), which RLIMIT_NOFILE shares out among the sandbox's
	// processes.
	FileMax uint64 `json:"file_max,omitempty"`
	// LandlockABI is the kernel's Landlock ABI version (0: none).
	LandlockABI int `json:"landlock_abi"`
	// Arch is the native architecture for seccomp ("x86_64", "aarch64";
	// empty when unsupported).
	Arch string `json:"arch"`
	// Cloud names the cloud this machine is a virtual machine of
	// (CloudVendor), "" when none is recognised.
	Cloud string `json:"cloud"`
}

// FromEnvironment reads the real host: the environment for HOME,
// HERMES_HOME and the CA variables, the uid, the working directory, bwrap
// ($BWPOLICY_BWRAP or PATH) and its options, the kernel and the limits.
func FromEnvironment() *Host {
	h := &Host{FS: OS{}, UID: os.Getuid(), Env: map[string]string{}}
	h.PasswdHome = passwdHomeOf(h.UID)
	h.Home = filepath.Clean(os.Getenv("HOME"))
	if !filepath.IsAbs(h.Home) || h.Home == "/" {
		h.Home = "/"
		if h.PasswdHome != "" {
			h.Home, h.HomeFromPasswd = h.PasswdHome, true
		}
	}
	if hh := os.Getenv("HERMES_HOME"); hh != "" {
		h.HermesHome = absFrom(h.Home, hh)
	} else {
		h.HermesHome = filepath.Join(h.Home, ".hermes")
	}
	if wd, err := os.Getwd(); err == nil {
		h.ProcessCwd = wd
	} else {
		h.ProcessCwd = h.Home
	}
	for _, v := range EnvVars() {
		if val := os.Getenv(v); val != "" {
			h.Env[v] = val
		}
	}
	for _, kv := range os.Environ() {
		if name, val, ok := strings.Cut(kv, "="); ok && name != "" {
			h.EnvNames = append(h.EnvNames, name)
			h.NoteEnvValue(name, val)
		}
	}
	sort.Strings(h.EnvNames)
	if p, err := hostprobe.FindBwrap(); err == nil {
		if info, err := hostprobe.ProbeBwrap(p); err == nil {
			h.Bwrap = info
		} else {
			h.Bwrap = hostprobe.BwrapInfo{Path: p, Identity: info.Identity}
		}
	}
	var u unix.Utsname
	if unix.Uname(&u) == nil {
		h.Kernel = unix.ByteSliceToString(u.Release[:])
	}
	h.HardAS = hardLimit(unix.RLIMIT_AS)
	h.HardCPU = hardLimit(unix.RLIMIT_CPU)
	h.HardNProc = hardLimit(unix.RLIMIT_NPROC)
	if b, err := os.ReadFile("/proc/sys/fs/file-max"); err == nil {
		h.FileMax, _ = strconv.ParseUint(strings.TrimSpace(string(b)), 10, 64)
	}
	h.LandlockABI, _ = hostprobe.LandlockABI()
	h.Cloud = CloudVendor(readDMI)
	h.Arch, _ = seccomp.NativeArch()
	return h
}

// EnvVars are the host variables the facts stage reads: those the
// registry's rows declare (Protection.Env) and PATH (the home layout
// allows its directories under HOME; H9 protects them), sorted, each
// once. FromEnvironment reads these and no others, the invocation
// records their digests (Facts.EnvChecked), and bwrun refuses another
// value.
func EnvVars() []string {
	out := []string{"PATH"}
	for _, p := range Protections {
		out = append(out, p.Env...)
	}
	sort.Strings(out)
	return slices.Compact(out)
}

// envDeclared is EnvVars as a set, built once: Getenv asks it on every
// read (a compile reads the variables a few hundred times), and the
// registry it derives from is fixed at build time.
var envDeclared = sync.OnceValue(func() map[string]bool {
	set := map[string]bool{}
	for _, v := range EnvVars() {
		set[v] = true
	}
	return set
})

// Getenv returns the value of the host variable name ("" when unset). It
// panics when name is not one of EnvVars: a gatherer reading a variable
// no row declares would work in a test host and see nothing on the real
// one (FromEnvironment reads only EnvVars), and bwrun would not re-check
// it.
func (h *Host) Getenv(name string) string {
	if !envDeclared()[name] {
		panic("facts: variable " + name + " is read but no registry row declares it (Protection.Env)")
	}
	return h.Env[name]
}

// CheckedVars are the variables of EnvVars that bwrun re-checks by
// value: all but those only rows with EnvByPaths declare (their paths
// are re-checked instead), sorted.
func CheckedVars() []string {
	out := []string{"PATH"}
	for _, p := range Protections {
		if !p.EnvByPaths {
			out = append(out, p.Env...)
		}
	}
	sort.Strings(out)
	return slices.Compact(out)
}

// envChecked is the digest of each of CheckedVars in h
// (Facts.EnvChecked).
func envChecked(h *Host) map[string]string {
	out := map[string]string{}
	for _, v := range CheckedVars() {
		out[v] = invocation.EnvDigest(h.Env[v])
	}
	return out
}

// NoteEnvValue records in EnvValueKinds the kind of credential value
// looks like, if any (the value itself is not kept).
func (h *Host) NoteEnvValue(name, value string) {
	if what, ok := secrets.SecretValue(value); ok {
		if h.EnvValueKinds == nil {
			h.EnvValueKinds = map[string]string{}
		}
		h.EnvValueKinds[name] = what
	}
}

func hardLimit(res int) uint64 {
	var r unix.Rlimit
	if unix.Getrlimit(res, &r) != nil {
		return Unlimited
	}
	if r.Max == unix.RLIM_INFINITY {
		return Unlimited
	}
	return r.Max
}

func absFrom(base, p string) string {
	if strings.HasPrefix(p, "~/") {
		p = filepath.Join(base, p[2:])
	}
	if !filepath.IsAbs(p) {
		p = filepath.Join(base, p)
	}
	return filepath.Clean(p)
}
