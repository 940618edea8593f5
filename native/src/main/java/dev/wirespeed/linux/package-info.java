/**
 * Linux system calls through FFM: {@link dev.wirespeed.linux.Affinity} pins threads to CPUs with
 * {@code sched_setaffinity}; failures are {@link dev.wirespeed.linux.NativeIoException}s that keep the
 * call's name and {@code errno}.
 */
package dev.wirespeed.linux;
