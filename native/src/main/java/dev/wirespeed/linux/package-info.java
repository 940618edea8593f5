/**
 * Linux system calls through FFM: {@link dev.wirespeed.linux.Affinity} pins threads to CPUs with
 * {@code sched_setaffinity}; {@link dev.wirespeed.linux.NativeSocket} and
 * {@link dev.wirespeed.linux.NativeServerSocket} are sockets read and written with {@code read(2)}
 * and {@code send(2)}; {@link dev.wirespeed.linux.Pipes} sizes pipes;
 * {@link dev.wirespeed.linux.LinuxFileReads} is the provider through which
 * {@link dev.wirespeed.io.ReadAll#readAll(java.nio.file.Path)} reads files straight into arrays.
 * Failures are {@link dev.wirespeed.linux.NativeIoException}s that keep the call's name and
 * {@code errno}.
 */
package dev.wirespeed.linux;
