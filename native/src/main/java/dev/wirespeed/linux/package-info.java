/**
 * Linux sockets and pipes through FFM: {@link dev.wirespeed.linux.NativeSocket} and
 * {@link dev.wirespeed.linux.NativeServerSocket} are sockets read and written with {@code recv(2)}
 * and {@code send(2)}; {@link dev.wirespeed.linux.NativePipe} is a pipe or an inherited descriptor
 * (standard input and output) that can be read without blocking, and {@link dev.wirespeed.linux.Pipes}
 * sizes pipes; {@link dev.wirespeed.linux.Affinity} pins threads to CPUs with
 * {@code sched_setaffinity}; {@link dev.wirespeed.linux.Futex} is the shared ring's sleep on a futex
 * ({@link dev.wirespeed.shm.RingSleep}), for a reader and writer in two processes. Failures are
 * {@link dev.wirespeed.linux.NativeIoException}s that keep the call's name and {@code errno}.
 *
 * <p>The module's other packages: {@link dev.wirespeed.linux.epoll} and {@link dev.wirespeed.linux.uring}
 * carry the loops of a {@link dev.wirespeed.loop.LoopGroup}, and io_uring sockets; {@link
 * dev.wirespeed.linux.tls} is a TLS engine on OpenSSL 3; files are read by a
 * provider of {@link dev.wirespeed.io.spi.FileReadProvider} that
 * {@link dev.wirespeed.io.ReadAll#readAll(java.nio.file.Path)} finds by itself.
 */
package dev.wirespeed.linux;
