// Package watch is H9's change watcher: one process per environment
// (bwrun --watch INVOCATION, started detached by bwrun when none
// answers) that keeps, with inotify, the set of directories of the
// writable set that changed, so that the post-command scan re-reads
// those instead of the whole tree (issue 26 item 4).
//
// # What is watched
//
// Every directory the scan walks (Config.Enter: the writable set, not
// what the invocation binds read-only or masks, not inside a ".git"
// directory, which the scan's repository inspection reads afresh after
// every command), for IN_CREATE, IN_DELETE, IN_MOVED_FROM, IN_MOVED_TO,
// IN_ATTRIB, IN_CLOSE_WRITE, IN_MODIFY, IN_DELETE_SELF and IN_MOVE_SELF;
// the kernel adds IN_Q_OVERFLOW, IN_IGNORED and IN_UNMOUNT. A directory
// is watched before it is listed (the watch is placed on the directory
// opened without following a symlink, through its descriptor, so that
// no rename between lookup and watch puts it on another one); a
// directory created or moved in is marked dirty as a whole subtree
// (Tree), so that what was made in it before its watch was in place is
// walked by the scan; one deleted or moved out is marked Tree too (what
// the scan knew below it is dropped). Any other event marks its
// directory dirty (Self: listed again).
//
// # Protocol (fail closed)
//
// The watcher has a random token, made at start. Its dirty directories
// are kept per generation: a request "since TOKEN G INVHASH" (after the
// command: all of the sandbox's processes are dead, and inotify queues
// an event inside the syscall that causes it, so the watcher, which
// drains its queue until EAGAIN after the request arrives, has seen
// every change) closes the current generation as N = G'+1 and answers
// the union of the dirty sets of the generations after G. It answers so
// only when it has watched without a gap since G: same token, same
// invocation (INVHASH, the digest of its bytes), no queue overflow, no
// watch it failed to place, no watch the kernel removed from a
// directory that is still there (IN_IGNORED, IN_UNMOUNT), G not older
// than the last acknowledged generation. Else it answers "full" with a
// new generation N (another token, or none: the caller scans the whole
// tree, then acknowledges N), or "no" with a reason (broken: the caller
// scans the whole tree, and the watcher exits, so that the next bwrun
// starts a fresh one). The dirty sets up to N are dropped only when the
// caller acknowledges ("ack TOKEN N") a finished scan of N, after it
// has recorded TOKEN and N beside its ledger, where no command can write
// (two phases): a bwrun killed mid-scan acknowledges nothing, so the
// next one asks since the same G and gets everything again. (And its
// journal entry makes the next command finish a whole scan first.)
//
// A watch limit reached (fs.inotify.max_user_watches) leaves no watcher
// to answer: every command scans the whole tree, as without one, and
// bwrun says so in one line; never a partial answer. So does a
// directory the watcher cannot open, one on a filesystem whose changes
// may not pass through this kernel (NFS, FUSE: checkLocal), and one
// directory under two names (a bind mount on the host: the kernel
// reports its changes under one of them only).
//
// # Cost
//
// The per-command work follows the changes, and the repositories:
// the scan re-lists the dirty directories, and re-visits every
// repository, bare or staged directory and directory with symlinks the
// last finished scan found (what such a visit reads may lie anywhere:
// an include target, a hooks path, a file written through a hard link),
// about 0.1 ms each.
//
// # The socket
//
// The watcher listens on a unix socket beside the invocation. The
// directory may be visible read-only in the sandbox, and connect()
// works on a read-only mount, so visibility is not what keeps a command
// out: every connection's peer (SO_PEERCRED, and SO_PEERPIDFD so that
// the answer is about that very process) must have the watcher's uid
// and be in the watcher's own pid namespace. Every sandbox has its own
// (bwrun refuses an invocation that does not unshare it: argcheck), so
// no sandboxed process can ask, reset or acknowledge anything.
package watch
