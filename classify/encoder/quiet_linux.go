package encoder

import "syscall"

// quietNice is how much nicer a quiet thread is than the process: where a
// thread of the process wants the same core, the scheduler gives the quiet
// one about a tenth of it.
const quietNice = 10

// lowerThreadPriority makes the calling thread quietNice nicer than it
// is, up to the nicest, 19. Making a thread of one's own nicer needs no
// privilege; should it fail, the thread runs at the process's priority.
func lowerThreadPriority() {
	tid := syscall.Gettid()
	raw, err := syscall.Getpriority(syscall.PRIO_PROCESS, tid)
	if err != nil {
		return
	}
	// The system call answers 20 minus the niceness.
	_ = syscall.Setpriority(syscall.PRIO_PROCESS, tid, min(19, 20-raw+quietNice))
}

// threadNice is the calling thread's niceness.
func threadNice() (int, error) {
	raw, err := syscall.Getpriority(syscall.PRIO_PROCESS, syscall.Gettid())
	return 20 - raw, err
}
