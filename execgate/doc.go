// Package execgate grades every program a command starts, at execve,
// with its real argv: the exec gate behind the text grading.
//
// On Linux the kernel's seccomp user notification (SECCOMP_RET_USER_NOTIF,
// kernel 5.5 or later for CONTINUE) stops each execve and execveat of a
// process tree until a supervisor answers. The child side ([InstallFilter])
// runs in rivumi's own re-exec just before the target's exec and hands
// the listener back over a socketpair ([SendFD], [RecvFD]); the
// supervisor ([Serve]) reads each call's path and argv from /proc/PID/mem
// (re-checking that the notification is still valid after reading), the
// working directory from /proc/PID/cwd, asks [Decide], and answers
// CONTINUE or EPERM.
//
// # Contracts
//
//   - Fail closed: a notification whose memory cannot be read, a decision
//     that errs, and a supervisor that stops are all EPERM; once the
//     listener is closed, the kernel fails every pending and later exec of
//     the tree (ENOSYS).
//   - The filter notifies on execve and execveat only; every other
//     syscall is left to the sandbox's own filter.
//
// # Limits
//
// CONTINUE lets the kernel re-read the arguments after the answer: a
// multi-threaded program can rewrite its argv memory between the check
// and the exec (the sandbox is the wall for that). Statically linked
// programs are covered (the gate is on the syscall). Other platforms have
// no gate.
package execgate
