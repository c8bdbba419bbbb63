/*
 * noopenat2 ERRNO PROGRAM [ARGS...]: run PROGRAM under a seccomp filter
 * that fails every openat2(2) with ERRNO (ENOSYS or EPERM) and lets every
 * other call through, as systemd's RestrictSUIDSGID=yes does to a unit
 * (it cannot inspect the mode inside struct open_how).  Exits 3 on an
 * architecture it does not know, 2 on bad arguments or a failed install.
 */
#include <errno.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#if defined(__x86_64__)
#define NATIVE_ARCH	AUDIT_ARCH_X86_64
#elif defined(__aarch64__)
#define NATIVE_ARCH	AUDIT_ARCH_AARCH64
#endif

int
main(int argc, char **argv)
{
#ifndef NATIVE_ARCH
	(void)argc;
	(void)argv;
	fprintf(stderr, "noopenat2: unknown architecture\n");
	return 3;
#else
	unsigned err;

	if (argc < 3 || (strcmp(argv[1], "ENOSYS") != 0 &&
	    strcmp(argv[1], "EPERM") != 0)) {
		fprintf(stderr, "usage: noopenat2 ENOSYS|EPERM PROGRAM "
		    "[ARGS...]\n");
		return 2;
	}
	err = strcmp(argv[1], "ENOSYS") == 0 ? ENOSYS : EPERM;
	struct sock_filter f[] = {
		/* Another architecture's calls pass: this is no sandbox. */
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
		    offsetof(struct seccomp_data, arch)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, NATIVE_ARCH, 1, 0),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
		    offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_openat2, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO |
		    (err & SECCOMP_RET_DATA)),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = {
		.len = (unsigned short)(sizeof(f) / sizeof(f[0])),
		.filter = f,
	};

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == -1 ||
	    prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog) == -1) {
		perror("noopenat2: seccomp filter");
		return 2;
	}
	execvp(argv[2], argv + 2);
	perror(argv[2]);
	return 2;
#endif
}
