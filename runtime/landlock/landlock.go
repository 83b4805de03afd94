// Package landlock restricts bwrun's launching thread with Landlock
// before bwrap starts (Invocation.Landlock: TCP port rules, abstract
// socket and signal scoping), so bwrap and the whole sandbox inherit
// the domain. Standard library and golang.org/x/sys only.
package landlock

import (
	"fmt"
	"strings"
	"unsafe"

	"github.com/bwpolicy/bwpolicy/runtime/hostprobe"
	"github.com/bwpolicy/bwpolicy/runtime/invocation"
	"golang.org/x/sys/unix"
)

// Landlock ABI versions that introduced what Invocation.Landlock uses.
const (
	// ABINet is the ABI of TCP bind/connect port rules.
	ABINet = 4
	// ABIScope is the ABI of abstract-socket and signal scoping.
	ABIScope = 6
)

const landlockRuleNetPort = 2 // LANDLOCK_RULE_NET_PORT

// landlockRulesetAttr is struct landlock_ruleset_attr up to .scoped.
type landlockRulesetAttr struct {
	handledAccessFS  uint64
	handledAccessNet uint64
	scoped           uint64
}

// landlockNetPortAttr is struct landlock_net_port_attr.
type landlockNetPortAttr struct {
	allowedAccess uint64
	port          uint64
}

// Apply restricts the calling thread (which must be locked to its
// goroutine and never be reused: Landlock domains and no_new_privs are
// per thread) with l's network and scope rules, best effort by the
// kernel's ABI: what the kernel cannot enforce is reported through warn.
// The process started from this thread (bwrap) and everything it starts
// inherit the domain.
func Apply(l *invocation.Landlock, warn func(string)) error {
	wantNet := l.TCPConnect != nil || l.TCPBind != nil
	wantScope := l.ScopeAbstractUnix || l.ScopeSignal
	if !wantNet && !wantScope {
		return nil
	}
	abi, err := hostprobe.LandlockABI()
	if abi < 1 {
		warn(fmt.Sprintf("Landlock rules not applied: %v", err))
		return nil
	}
	var attr landlockRulesetAttr
	var skipped []string
	if wantNet {
		if abi >= ABINet {
			if l.TCPConnect != nil {
				attr.handledAccessNet |= unix.LANDLOCK_ACCESS_NET_CONNECT_TCP
			}
			if l.TCPBind != nil {
				attr.handledAccessNet |= unix.LANDLOCK_ACCESS_NET_BIND_TCP
			}
		} else {
			skipped = append(skipped, "TCP port rules (need ABI 4)")
		}
	}
	if wantScope {
		if abi >= ABIScope {
			if l.ScopeAbstractUnix {
				attr.scoped |= unix.LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET
			}
			if l.ScopeSignal {
				attr.scoped |= unix.LANDLOCK_SCOPE_SIGNAL
			}
		} else {
			skipped = append(skipped, "abstract-socket/signal scoping (needs ABI 6)")
		}
	}
	if len(skipped) > 0 {
		warn(fmt.Sprintf("kernel Landlock ABI %d cannot enforce %s; not enforced", abi, strings.Join(skipped, " and ")))
	}
	if attr.handledAccessNet == 0 && attr.scoped == 0 {
		return nil
	}
	// Pass only the fields in use: any kernel with the needed ABI accepts
	// that size.
	size := unsafe.Offsetof(attr.scoped)
	if attr.scoped != 0 {
		size = unsafe.Sizeof(attr)
	}
	fd, _, errno := unix.Syscall(unix.SYS_LANDLOCK_CREATE_RULESET, uintptr(unsafe.Pointer(&attr)), size, 0)
	if errno != 0 {
		return fmt.Errorf("landlock_create_ruleset: %w", errno)
	}
	defer unix.Close(int(fd))
	add := func(access uint64, ports []uint16) error {
		for _, p := range ports {
			rule := landlockNetPortAttr{allowedAccess: access, port: uint64(p)}
			if _, _, errno := unix.Syscall6(unix.SYS_LANDLOCK_ADD_RULE, fd, landlockRuleNetPort, uintptr(unsafe.Pointer(&rule)), 0, 0, 0); errno != 0 {
				return fmt.Errorf("landlock_add_rule(port %d): %w", p, errno)
			}
		}
		return nil
	}
	if attr.handledAccessNet&unix.LANDLOCK_ACCESS_NET_CONNECT_TCP != 0 {
		if err := add(unix.LANDLOCK_ACCESS_NET_CONNECT_TCP, l.TCPConnect); err != nil {
			return err
		}
	}
	if attr.handledAccessNet&unix.LANDLOCK_ACCESS_NET_BIND_TCP != 0 {
		if err := add(unix.LANDLOCK_ACCESS_NET_BIND_TCP, l.TCPBind); err != nil {
			return err
		}
	}
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return fmt.Errorf("prctl(PR_SET_NO_NEW_PRIVS): %w", err)
	}
	if _, _, errno := unix.Syscall(unix.SYS_LANDLOCK_RESTRICT_SELF, fd, 0, 0); errno != 0 {
		return fmt.Errorf("landlock_restrict_self: %w", errno)
	}
	return nil
}
