//go:build windows

package harness

import (
	"fmt"
	"os"
	"os/exec"
	"syscall"
	"unsafe"

	"golang.org/x/sys/windows"
)

// prepareGroup starts the command in a new console process group, so that
// console signals (Ctrl+C) sent to rivumi do not reach it.
func prepareGroup(cmd *exec.Cmd) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.CreationFlags |= windows.CREATE_NEW_PROCESS_GROUP
}

// jobGroup is a job object holding the command and, by inheritance,
// every process it starts. Closing the last handle ends them all
// (JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE).
//
// The process is assigned to the job right after it started: a child it
// spawns within that instant is outside the job.
type jobGroup struct{ job windows.Handle }

func newProcGroup(p *os.Process) (procGroup, error) {
	job, err := windows.CreateJobObject(nil, nil)
	if err != nil {
		return nil, fmt.Errorf("create job object: %w", err)
	}
	info := windows.JOBOBJECT_EXTENDED_LIMIT_INFORMATION{
		BasicLimitInformation: windows.JOBOBJECT_BASIC_LIMIT_INFORMATION{LimitFlags: windows.JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE},
	}
	if _, err := windows.SetInformationJobObject(job, windows.JobObjectExtendedLimitInformation,
		uintptr(unsafe.Pointer(&info)), uint32(unsafe.Sizeof(info))); err != nil {
		windows.CloseHandle(job) //nolint:errcheck
		return nil, fmt.Errorf("configure job object: %w", err)
	}
	ph, err := windows.OpenProcess(windows.PROCESS_SET_QUOTA|windows.PROCESS_TERMINATE, false, uint32(p.Pid))
	if err != nil {
		windows.CloseHandle(job) //nolint:errcheck
		return nil, fmt.Errorf("open process: %w", err)
	}
	defer windows.CloseHandle(ph) //nolint:errcheck
	if err := windows.AssignProcessToJobObject(job, ph); err != nil {
		windows.CloseHandle(job) //nolint:errcheck
		return nil, fmt.Errorf("assign to job object: %w", err)
	}
	return jobGroup{job}, nil
}

func (g jobGroup) terminate() { windows.TerminateJobObject(g.job, 1) } //nolint:errcheck
func (g jobGroup) kill()      { windows.TerminateJobObject(g.job, 1) } //nolint:errcheck
func (g jobGroup) close()     { windows.CloseHandle(g.job) }           //nolint:errcheck

func (g jobGroup) alive() bool {
	var info basicAccounting
	err := windows.QueryInformationJobObject(g.job, windows.JobObjectBasicAccountingInformation,
		uintptr(unsafe.Pointer(&info)), uint32(unsafe.Sizeof(info)), nil)
	return err != nil || info.ActiveProcesses > 0
}

// basicAccounting is JOBOBJECT_BASIC_ACCOUNTING_INFORMATION.
type basicAccounting struct {
	TotalUserTime, TotalKernelTime                       int64
	ThisPeriodTotalUserTime, ThisPeriodTotalKernelTime   int64
	TotalPageFaultCount, TotalProcesses, ActiveProcesses uint32
	TotalTerminatedProcesses                             uint32
}
