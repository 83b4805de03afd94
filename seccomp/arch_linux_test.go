//go:build linux && (amd64 || arm64)

package seccomp

import (
	"testing"

	"golang.org/x/sys/unix"
)

// TestNativeNumbersMatchKernelHeaders checks the builder's syscall table
// for the native architecture against golang.org/x/sys (generated from
// the kernel headers), and the constants against it too.
func TestNativeNumbersMatchKernelHeaders(t *testing.T) {
	want := map[string]uint32{
		"ioctl": unix.SYS_IOCTL, "clone": unix.SYS_CLONE, "ptrace": unix.SYS_PTRACE,
		"personality": unix.SYS_PERSONALITY, "pivot_root": unix.SYS_PIVOT_ROOT,
		"mount": unix.SYS_MOUNT, "umount2": unix.SYS_UMOUNT2, "init_module": unix.SYS_INIT_MODULE,
		"delete_module": unix.SYS_DELETE_MODULE, "kexec_load": unix.SYS_KEXEC_LOAD,
		"add_key": unix.SYS_ADD_KEY, "request_key": unix.SYS_REQUEST_KEY, "keyctl": unix.SYS_KEYCTL,
		"unshare": unix.SYS_UNSHARE, "perf_event_open": unix.SYS_PERF_EVENT_OPEN,
		"setns": unix.SYS_SETNS, "process_vm_readv": unix.SYS_PROCESS_VM_READV,
		"process_vm_writev": unix.SYS_PROCESS_VM_WRITEV, "finit_module": unix.SYS_FINIT_MODULE,
		"kexec_file_load": unix.SYS_KEXEC_FILE_LOAD, "bpf": unix.SYS_BPF,
		"userfaultfd": unix.SYS_USERFAULTFD, "open_tree": unix.SYS_OPEN_TREE,
		"move_mount": unix.SYS_MOVE_MOUNT, "fsopen": unix.SYS_FSOPEN, "fsconfig": unix.SYS_FSCONFIG,
		"fsmount": unix.SYS_FSMOUNT, "fspick": unix.SYS_FSPICK, "clone3": unix.SYS_CLONE3,
		"mount_setattr": unix.SYS_MOUNT_SETATTR, "open_tree_attr": unix.SYS_OPEN_TREE_ATTR,
		"io_uring_setup": unix.SYS_IO_URING_SETUP, "io_uring_enter": unix.SYS_IO_URING_ENTER,
		"io_uring_register": unix.SYS_IO_URING_REGISTER,
		"socket":            unix.SYS_SOCKET, "sendto": unix.SYS_SENDTO, "sendmsg": unix.SYS_SENDMSG, "sendmmsg": unix.SYS_SENDMMSG,
		"pidfd_getfd": unix.SYS_PIDFD_GETFD,
	}
	arch, err := NativeArch()
	if err != nil {
		t.Fatal(err)
	}
	got := archs[arch].nr
	if len(got) != len(want) {
		t.Errorf("%s table has %d syscalls, test knows %d", arch, len(got), len(want))
	}
	for name, n := range want {
		if got[name] != n {
			t.Errorf("%s: %s = %d, kernel headers say %d", arch, name, got[name], n)
		}
	}
	for name, pair := range map[string][2]uint64{
		"TIOCSTI":          {tiocsti, unix.TIOCSTI},
		"TIOCLINUX":        {tioclinux, unix.TIOCLINUX},
		"CLONE_NEWNS":      {cloneNewNS, unix.CLONE_NEWNS},
		"CLONE_NEWCGROUP":  {cloneNewCgroup, unix.CLONE_NEWCGROUP},
		"CLONE_NEWUTS":     {cloneNewUTS, unix.CLONE_NEWUTS},
		"CLONE_NEWIPC":     {cloneNewIPC, unix.CLONE_NEWIPC},
		"CLONE_NEWUSER":    {cloneNewUser, unix.CLONE_NEWUSER},
		"CLONE_NEWPID":     {cloneNewPID, unix.CLONE_NEWPID},
		"CLONE_NEWNET":     {cloneNewNet, unix.CLONE_NEWNET},
		"EPERM":            {uint64(EPERM), uint64(unix.EPERM)},
		"ENOSYS":           {uint64(ENOSYS), uint64(unix.ENOSYS)},
		"RET_ALLOW":        {retAllow, unix.SECCOMP_RET_ALLOW},
		"RET_KILL_PROCESS": {retKillProcess, unix.SECCOMP_RET_KILL_PROCESS},
		"RET_ERRNO":        {retErrno, unix.SECCOMP_RET_ERRNO},
		"X86_64":           {auditArchX86_64, unix.AUDIT_ARCH_X86_64},
		"I386":             {auditArchI386, unix.AUDIT_ARCH_I386},
		"AARCH64":          {auditArchAARCH64, unix.AUDIT_ARCH_AARCH64},
		"ARM":              {auditArchARM, unix.AUDIT_ARCH_ARM},
	} {
		if pair[0] != pair[1] {
			t.Errorf("%s = %#x, x/sys says %#x", name, pair[0], pair[1])
		}
	}
}
